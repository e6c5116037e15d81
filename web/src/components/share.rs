//! Sharing: the link to the current scenario with a one-line description, and the iframe
//! snippet that embeds the current chart in a documentation page.

use crate::infra;
use costlab_core::knobs::Knob;
use costlab_core::scenario::Scenario;
use costlab_core::url::{self, EmbedOptions};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ShareProps {
    pub scenario: Scenario,
}

/// The snippet a documentation author pastes: the iframe plus the few lines that let it
/// take the height the embed reports.
pub fn embed_snippet(base: &str, scenario: &Scenario, knobs: &[Knob]) -> String {
    let embed = EmbedOptions {
        embed: true,
        read_only: false,
        theme: None,
        knobs: knobs.to_vec(),
    };
    let src = format!("{base}#{}", url::encode(scenario, &embed));
    let title = url::describe(scenario).replace('"', "&quot;");
    format!(
        "<iframe src=\"{src}\" title=\"costlab: {title}\" style=\"width:100%;border:0\" height=\"520\" loading=\"lazy\"></iframe>\n\
<script>\n\
addEventListener('message', (e) => {{\n\
  if (e.origin !== new URL('{base}', location.href).origin || e.data?.type !== 'costlab:resize') return;\n\
  for (const f of document.querySelectorAll('iframe')) if (f.contentWindow === e.source) f.style.height = e.data.height + 'px';\n\
}});\n\
</script>"
    )
}

#[function_component(SharePanel)]
pub fn share_panel(props: &ShareProps) -> Html {
    let base = infra::base_url();
    let link = format!(
        "{base}#{}",
        url::encode(&props.scenario, &EmbedOptions::default())
    );
    let knobs: Vec<Knob> = props.scenario.changed_knobs().into_iter().take(4).collect();
    let snippet = embed_snippet(&base, &props.scenario, &knobs);
    let copied = use_state(|| None::<&'static str>);
    let copy = |what: &'static str, text: String| {
        let copied = copied.clone();
        Callback::from(move |_: MouseEvent| {
            infra::copy_to_clipboard(&text);
            copied.set(Some(what));
        })
    };
    html! {
        <section class="panel share" aria-labelledby="share-title">
            <h2 id="share-title">{ "Share" }</h2>
            <p class="note">{ "Everything is in the link; nothing is sent to a server." }</p>
            <p class="description" id="scenario-description">{ url::describe(&props.scenario) }</p>
            <div class="panel-row">
                <input id="share-link" class="link" type="text" readonly=true value={link.clone()}
                    aria-label="Link to this scenario" aria-describedby="scenario-description" />
                <button type="button" id="copy-link" onclick={copy("link", link)}>{ "Copy link" }</button>
            </div>
            <details>
                <summary>{ "Embed this chart" }</summary>
                <textarea id="embed-code" readonly=true rows="6" aria-label="Embed code" value={snippet.clone()} />
                <button type="button" id="copy-embed" onclick={copy("embed", snippet)}>{ "Copy embed code" }</button>
            </details>
            if let Some(what) = *copied {
                <p class="note" role="status">{ if what == "link" { "Link copied." } else { "Embed code copied." } }</p>
            }
        </section>
    }
}
