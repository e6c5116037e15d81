//! A file picker that also takes a dropped file: reads the file's text in the browser and
//! hands it on with its name. The calibration loader and the validation report loader use it.

use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct FileDropProps {
    /// The file input's id.
    pub id: AttrValue,
    /// The drop zone's class.
    pub class: AttrValue,
    pub label: AttrValue,
    /// Larger files are refused before they are read.
    pub max_bytes: usize,
    /// What the file should be, for the message about one too large ("a calibration file").
    pub kind: AttrValue,
    /// A file's name and text.
    pub on_text: Callback<(String, String)>,
    /// Why a file could not be read, naming it.
    pub on_error: Callback<String>,
    /// The file input's `accept` (default: JSON files).
    #[prop_or(AttrValue::Static(".json,application/json"))]
    pub accept: AttrValue,
    /// Shown under the input (what the loaded file gave, or what was wrong with it).
    #[prop_or_default]
    pub children: Html,
}

#[function_component(FileDrop)]
pub fn file_drop(props: &FileDropProps) -> Html {
    let load = {
        let (on_text, on_error) = (props.on_text.clone(), props.on_error.clone());
        let (max_bytes, kind) = (props.max_bytes, props.kind.clone());
        Callback::from(move |file: web_sys::File| {
            let name = file.name();
            if file.size() > max_bytes as f64 {
                on_error.emit(format!(
                    "{name}: {} bytes is larger than {kind} can be",
                    file.size()
                ));
                return;
            }
            let (on_text, on_error) = (on_text.clone(), on_error.clone());
            wasm_bindgen_futures::spawn_local(async move {
                match wasm_bindgen_futures::JsFuture::from(file.text()).await {
                    Ok(t) => on_text.emit((name, t.as_string().unwrap_or_default())),
                    Err(_) => on_error.emit(format!("{name}: the browser could not read the file")),
                }
            });
        })
    };
    let on_pick = {
        let load = load.clone();
        Callback::from(move |e: Event| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            if let Some(f) = input.files().and_then(|l| l.get(0)) {
                load.emit(f);
            }
            input.set_value("");
        })
    };
    let on_drop = Callback::from(move |e: DragEvent| {
        e.prevent_default();
        if let Some(f) = e
            .data_transfer()
            .and_then(|d| d.files())
            .and_then(|l| l.get(0))
        {
            load.emit(f);
        }
    });
    let on_drag_over = Callback::from(|e: DragEvent| e.prevent_default());
    html! {
        <div class={props.class.clone()} ondrop={on_drop} ondragover={on_drag_over}>
            <label for={props.id.clone()}>{ props.label.clone() }</label>
            <input id={props.id.clone()} type="file" accept={props.accept.clone()} onchange={on_pick} />
            { props.children.clone() }
        </div>
    }
}
