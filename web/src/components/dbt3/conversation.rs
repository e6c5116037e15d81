//! The view's conversations with the worker: the tables' ([`Conversation`]) and the
//! diagrams' ([`DiagramConversation`]), each at most one request in flight and the latest
//! waiting.

use crate::components::diagram::COARSE;
use crate::worker_protocol::{
    self, AxisRequest, DiagramReply, DiagramRequest, Reply, Request, ToWorker,
};

/// The page's side of the conversation: at most one request in flight and only the latest
/// waiting, so a slider drag never queues a backlog of replans; replies to anything but the
/// latest request are dropped.
#[derive(Default)]
pub struct Conversation {
    ready: bool,
    in_flight: bool,
    waiting: Option<Request>,
    /// The latest inputs: only a reply to them is shown.
    last: Option<Request>,
}

impl Conversation {
    /// New inputs; returns the message to post now, if the worker is free.
    pub fn request(&mut self, r: Request) -> Option<String> {
        self.last = Some(r.clone());
        self.waiting = Some(r);
        self.next()
    }

    /// New inputs the page's planner answered: nothing waits for the worker, and a reply
    /// it is working on will be stale.
    pub fn answered_on_page(&mut self, r: &Request) {
        self.last = Some(r.clone());
        self.waiting = None;
    }

    /// The latest inputs.
    pub fn latest(&self) -> Option<&Request> {
        self.last.as_ref()
    }

    /// The worker announced that it listens.
    pub fn ready(&mut self) -> Option<String> {
        self.ready = true;
        self.next()
    }

    /// A reply came: the reply if it answers the latest request, and the message to post next.
    pub fn reply(&mut self, r: Reply) -> (Option<Reply>, Option<String>) {
        self.in_flight = false;
        let current = self
            .last
            .as_ref()
            .is_some_and(|l| l.id == r.id)
            .then_some(r);
        (current, self.next())
    }

    fn next(&mut self) -> Option<String> {
        if !self.ready || self.in_flight {
            return None;
        }
        let r = self.waiting.take()?;
        self.in_flight = true;
        Some(worker_protocol::to_message(&ToWorker::Dbt3(Box::new(r))))
    }
}

/// The diagram's side of the conversation: at most one diagram in flight and the latest
/// waiting. Each diagram is asked for coarse first (no boundaries); the fine picture is
/// asked for only when the coarse reply answers the latest inputs, so moving a knob
/// cancels the refinement of a picture no longer wanted.
#[derive(Default)]
pub struct DiagramConversation {
    ready: bool,
    in_flight: bool,
    waiting: Option<DiagramRequest>,
    latest: Option<DiagramRequest>,
}

impl DiagramConversation {
    pub fn request(&mut self, r: DiagramRequest) -> Option<String> {
        let coarse_axis = |a: &AxisRequest| AxisRequest {
            n: COARSE.min(a.n),
            ..a.clone()
        };
        self.waiting = Some(DiagramRequest {
            fine: false,
            x: coarse_axis(&r.x),
            y: r.y.as_ref().map(coarse_axis),
            ..r.clone()
        });
        self.latest = Some(r);
        self.next()
    }

    pub fn ready(&mut self) -> Option<String> {
        self.ready = true;
        self.next()
    }

    /// A reply came: the reply if it answers the latest inputs, and the message to post
    /// next (the fine picture after the latest coarse one).
    pub fn reply(&mut self, r: DiagramReply) -> (Option<DiagramReply>, Option<String>) {
        self.in_flight = false;
        let current = self.latest.as_ref().is_some_and(|l| l.id == r.id);
        if current && !r.fine && self.waiting.is_none() {
            self.waiting = self.latest.clone();
        }
        (current.then_some(r), self.next())
    }

    fn next(&mut self) -> Option<String> {
        if !self.ready || self.in_flight {
            return None;
        }
        let r = self.waiting.take()?;
        self.in_flight = true;
        Some(worker_protocol::to_message(&ToWorker::Diagram(r)))
    }
}
