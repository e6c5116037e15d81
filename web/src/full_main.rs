//! The full playground, loaded by the first load when the scenario needs it (see
//! `costlab_web::handover`): the same app with every view.

fn main() {
    costlab_web::start();
}
