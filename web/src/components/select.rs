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
