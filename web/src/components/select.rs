//! A `<select>` whose shown option always follows the state. Browsers stop honouring the
//! `selected` attribute once the user has picked an option, so after back/forward or a
//! loaded link the DOM value is set explicitly.

use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct SelectProps {
    pub id: AttrValue,
    pub value: AttrValue,
    /// (value, label, tooltip)
    pub options: Vec<(AttrValue, AttrValue, Option<AttrValue>)>,
    pub onchange: Callback<String>,
    #[prop_or_default]
    pub label: Option<AttrValue>,
}

#[function_component(Select)]
pub fn select(props: &SelectProps) -> Html {
    let node = use_node_ref();
    {
        let node = node.clone();
        use_effect_with(props.value.clone(), move |v| {
            if let Some(el) = node.cast::<web_sys::HtmlSelectElement>() {
                if el.value() != v.as_str() {
                    el.set_value(v);
                }
            }
        });
    }
    let onchange = {
        let cb = props.onchange.clone();
        Callback::from(move |e: Event| {
            let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
            cb.emit(select.value());
        })
    };
    html! {
        <select id={props.id.clone()} ref={node} {onchange} aria-label={props.label.clone()}>
            { for props.options.iter().map(|(v, l, t)| html! {
                <option value={v.clone()} selected={*v == props.value} title={t.clone()}>{ l.clone() }</option>
            }) }
        </select>
    }
}

/// A `Select` as the page's panels use it. One function, so the props builder and the
/// component node are compiled once instead of inline at each of the page's selects.
pub fn select(
    id: AttrValue,
    value: AttrValue,
    options: Vec<(AttrValue, AttrValue, Option<AttrValue>)>,
    onchange: Callback<String>,
) -> Html {
    html! { <Select {id} {value} {options} {onchange} /> }
}

/// Options with fixed values and labels and no tooltips.
pub fn fixed_options(
    list: &[(&'static str, &'static str)],
) -> Vec<(AttrValue, AttrValue, Option<AttrValue>)> {
    list.iter()
        .map(|&(v, l)| (AttrValue::Static(v), AttrValue::Static(l), None))
        .collect()
}

/// The baseline presets of the engines on show (the DBT3 and user workloads' baseline).
pub fn preset_options(
    engines: &costlab_core::scenario::Engines,
) -> Vec<(AttrValue, AttrValue, Option<AttrValue>)> {
    costlab_core::knobs::PRESETS
        .iter()
        .filter(|p| engines.list().contains(&p.engine))
        .map(|p| {
            (
                AttrValue::Static(p.id),
                AttrValue::Static(p.label),
                Some(AttrValue::Static(p.source)),
            )
        })
        .collect()
}
