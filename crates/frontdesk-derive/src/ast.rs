//! The model of a derive input: a form's fields, each with its kind, read from the Rust
//! types and attributes.

use proc_macro2::Span;
use syn::{GenericArgument, PathArguments, Type};

use crate::attr::{self, ContainerAttrs, FieldAttrs};
use crate::ctxt::Ctxt;

/// The text types, each with the format it implies.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum TextType {
    String,
    Email,
    Url,
    Date,
    DateTime,
}

impl TextType {
    pub(crate) fn format(self) -> Option<&'static str> {
        match self {
            TextType::String => None,
            TextType::Email => Some("email"),
            TextType::Url => Some("uri"),
            TextType::Date => Some("date"),
            TextType::DateTime => Some("date-time"),
        }
    }
}

/// One value of a field.
#[derive(Clone)]
pub(crate) enum Leaf {
    Text(TextType),
    Bool,
    /// An integer type: its name and its range clamped to the safe JSON range.
    Int {
        name: String,
        min: i128,
        max: i128,
    },
    /// `f32` (true) or `f64` (false).
    Float {
        f32: bool,
    },
    /// Anything else: a `FormEnum` (checked by the compiler through the trait bound).
    Enum,
}

/// What a field holds.
#[derive(Clone)]
pub(crate) enum Shape {
    Single(Leaf),
    /// `Vec<E>`, `BTreeSet<E>` or `HashSet<E>` of a `FormEnum`.
    Multi {
        elem: Type,
    },
}

/// One field of the form.
pub(crate) struct FormField {
    pub(crate) ident: syn::Ident,
    pub(crate) key: String,
    pub(crate) key_span: Span,
    /// The type inside `Option`, or the whole type.
    pub(crate) inner: Type,
    pub(crate) optional: bool,
    pub(crate) shape: Shape,
    pub(crate) attrs: FieldAttrs,
    pub(crate) description: Option<String>,
}

impl FormField {
    /// Is the field listed in `required`?
    pub(crate) fn required(&self) -> bool {
        !self.optional && (self.attrs.default.is_none() || self.attrs.required.is_some())
    }
}

/// A struct deriving `Form`.
pub(crate) struct FormInput {
    pub(crate) ident: syn::Ident,
    pub(crate) attrs: ContainerAttrs,
    pub(crate) fields: Vec<FormField>,
}

const SAFE: i128 = (1 << 53) - 1;

fn last_segment(ty: &Type) -> Option<&syn::PathSegment> {
    match ty {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last(),
        Type::Group(g) => last_segment(&g.elem),
        _ => None,
    }
}

/// The single generic type argument of `Name<T>`.
fn one_arg(seg: &syn::PathSegment) -> Option<&Type> {
    let PathArguments::AngleBracketed(args) = &seg.arguments else {
        return None;
    };
    let mut types = args.args.iter().filter_map(|a| match a {
        GenericArgument::Type(t) => Some(t),
        _ => None,
    });
    let first = types.next()?;
    types.next().is_none().then_some(first)
}

fn int_range(name: &str) -> Option<(i128, i128)> {
    Some(match name {
        "i8" => (i8::MIN.into(), i8::MAX.into()),
        "i16" => (i16::MIN.into(), i16::MAX.into()),
        "i32" => (i32::MIN.into(), i32::MAX.into()),
        "i64" | "i128" | "isize" => (-SAFE, SAFE),
        "u8" => (0, u8::MAX.into()),
        "u16" => (0, u16::MAX.into()),
        "u32" => (0, u32::MAX.into()),
        "u64" | "u128" | "usize" => (0, SAFE),
        _ => return None,
    })
}

/// What a (non-`Option`) type is as a form value, or why it cannot be one.
fn leaf(ty: &Type) -> Result<Leaf, String> {
    let seg = match ty {
        Type::Tuple(t) if t.elems.is_empty() => {
            return Err("`()` cannot be a form field".into());
        }
        Type::Tuple(_) => {
            return Err("a tuple cannot be a form field: a form's fields are flat; \
                        use one field per value"
                .into());
        }
        Type::Array(_) | Type::Slice(_) => {
            return Err(
                "an array cannot be a form field; use `Vec<E>` or a set of a \
                        field-less enum `E` for a multi-select"
                    .into(),
            );
        }
        Type::Reference(_) => {
            return Err(
                "a reference cannot be a form field; use an owned type such as \
                        `String`"
                    .into(),
            );
        }
        _ => match last_segment(ty) {
            Some(seg) => seg,
            None => return Err("this type cannot be a form field".into()),
        },
    };
    let name = seg.ident.to_string();
    let bare = matches!(seg.arguments, PathArguments::None);
    if let Some((min, max)) = int_range(&name).filter(|_| bare) {
        return Ok(Leaf::Int { name, min, max });
    }
    let leaf = match name.as_str() {
        "String" => Leaf::Text(TextType::String),
        "Email" => Leaf::Text(TextType::Email),
        "Url" => Leaf::Text(TextType::Url),
        "Date" => Leaf::Text(TextType::Date),
        "DateTime" => Leaf::Text(TextType::DateTime),
        "bool" => Leaf::Bool,
        "f32" => Leaf::Float { f32: true },
        "f64" => Leaf::Float { f32: false },
        "HashMap" | "BTreeMap" | "IndexMap" => {
            return Err("a map cannot be a form field: a form's fields are fixed; \
                        declare one field per key"
                .into());
        }
        "Option" => {
            return Err("`Option<Option<T>>` cannot be a form field; use `Option<T>`".into());
        }
        "Vec" | "BTreeSet" | "HashSet" => {
            return Err("a list cannot be nested in a form field".into());
        }
        "char" | "str" => {
            return Err("use `String` for a text field".into());
        }
        "Box" | "Rc" | "Arc" | "Cow" => {
            return Err(format!(
                "`{name}` cannot be a form field; use the value type"
            ));
        }
        _ if !bare => {
            return Err(
                "a generic type cannot be a form field; a single-select field is \
                        a field-less enum that derives `FormEnum`"
                    .into(),
            );
        }
        _ => Leaf::Enum,
    };
    if !bare {
        return Err(format!("`{name}` takes no generic arguments here"));
    }
    Ok(leaf)
}

/// Classify a field type: `(optional, inner type, shape)`.
fn classify(ty: &Type) -> Result<(bool, Type, Shape), String> {
    let (optional, inner) = match last_segment(ty) {
        Some(seg) if seg.ident == "Option" => match one_arg(seg) {
            Some(t) => (true, t.clone()),
            None => return Err("`Option` needs one type argument".into()),
        },
        _ => (false, ty.clone()),
    };
    if let Some(seg) = last_segment(&inner)
        && matches!(
            seg.ident.to_string().as_str(),
            "Vec" | "BTreeSet" | "HashSet"
        )
    {
        let what = seg.ident.to_string();
        let Some(elem) = one_arg(seg) else {
            return Err(format!("`{what}` needs one type argument"));
        };
        return match leaf(elem) {
            Ok(Leaf::Enum) => Ok((optional, inner.clone(), Shape::Multi { elem: elem.clone() })),
            _ => Err(format!(
                "a `{what}` field must hold a field-less enum that derives `FormEnum` \
                 (a multi-select); lists of text, numbers or structs are outside the \
                 elicitation schema"
            )),
        };
    }
    let l = leaf(&inner)?;
    Ok((optional, inner, Shape::Single(l)))
}

/// Read a struct deriving `Form`.
pub(crate) fn form_input(cx: &mut Ctxt, input: &syn::DeriveInput) -> Option<FormInput> {
    let data = match &input.data {
        syn::Data::Struct(s) => s,
        syn::Data::Enum(e) => {
            cx.error_at(
                e.enum_token.span,
                "`Form` is derived for a struct with named fields; for an enum used as a \
                 select field, derive `FormEnum`",
            );
            return None;
        }
        syn::Data::Union(u) => {
            cx.error_at(u.union_token.span, "`Form` cannot be derived for a union");
            return None;
        }
    };
    if !input.generics.params.is_empty() {
        cx.error_spanned_by(&input.generics, "a form cannot have generic parameters");
    }
    let attrs = attr::container(cx, &input.attrs, false);
    let named = match &data.fields {
        syn::Fields::Named(n) => n,
        syn::Fields::Unnamed(u) => {
            cx.error_spanned_by(
                u,
                "a tuple struct cannot be a form: each field needs a name (its key)",
            );
            return None;
        }
        syn::Fields::Unit => {
            cx.error_spanned_by(
                &input.ident,
                "a unit struct cannot be a form; give it named fields",
            );
            return None;
        }
    };
    let mut fields = Vec::new();
    for f in &named.named {
        let Some(ident) = f.ident.clone() else {
            continue;
        };
        let fattrs = attr::field(cx, &f.attrs);
        let (optional, inner, shape) = match classify(&f.ty) {
            Ok(c) => c,
            Err(msg) => {
                cx.error_spanned_by(&f.ty, msg);
                continue;
            }
        };
        let raw = syn::ext::IdentExt::unraw(&ident).to_string();
        let (key, key_span) = match (&fattrs.rename, attrs.rename_all) {
            (Some(r), _) => (r.value.clone(), r.span),
            (None, Some(rule)) => (rule.apply(&raw), ident.span()),
            (None, None) => (raw, ident.span()),
        };
        let description = match &fattrs.description {
            Some(d) => Some(d.value.clone()),
            None => attr::docs(&f.attrs),
        };
        fields.push(FormField {
            ident,
            key,
            key_span,
            inner,
            optional,
            shape,
            attrs: fattrs,
            description,
        });
    }
    Some(FormInput {
        ident: input.ident.clone(),
        attrs,
        fields,
    })
}
