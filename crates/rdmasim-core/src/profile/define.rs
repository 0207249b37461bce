//! The macros that turn the one list of profile parameters (profile/params.rs) into types.
//!
//! Each parameter is written once, as `part.name: Type` with its doc, in the order users see
//! (`rdmasim profiles`, the allowed keys of `[hardware.overrides]`). From that list come:
//! - a struct per part (`NicParams`, `LinkParams`, `SwitchParams`, `HostParams`) holding its
//!   parameters, and the matching struct of sources (`NicSources`, …) and of optional values
//!   (`NicOverrides`, …: a named host sets `HostOverrides`); the part of a parameter is the
//!   type it sits in;
//! - `HwProfile`, the parts together under a name, and `ProfileSources` likewise;
//! - the flat `ProfileOverrides` a scenario writes (every parameter in list order, unknown keys
//!   refused) and the table rows.
//!
//! A declarative macro cannot pick a part's fields out of one interleaved list in a single
//! expansion, so `split_parts!` walks the list once and sorts each entry into its part's pile.

/// Every parameter once, `part.name: Type` with its doc; see the module text.
macro_rules! profile_params {
    ($( $(#[doc = $doc:literal])* $part:ident . $name:ident : $ty:ty ),* $(,)?) => {
        $crate::profile::define::split_parts! { [] [] [] [] $( $(#[doc = $doc])* $part . $name : $ty, )* }

        /// Per-scenario overrides: any subset of the profile's parameters, by their flat names
        /// (a scenario writes `post_send_cpu_ns = …`, not which part it is in).
        #[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct ProfileOverrides {
            $( #[serde(default)] pub $name: Option<$ty>, )*
        }

        impl ProfileOverrides {
            /// These overrides with `over`'s on top (where both set a parameter, `over` wins).
            pub fn merged(&self, over: &ProfileOverrides) -> ProfileOverrides {
                ProfileOverrides { $( $name: over.$name.clone().or_else(|| self.$name.clone()), )* }
            }

            /// The names of the parameters set.
            pub fn names(&self) -> Vec<&'static str> {
                let mut v = Vec::new();
                $( if self.$name.is_some() { v.push(stringify!($name)); } )*
                v
            }
        }

        impl HwProfile {
            /// Applies overrides; returns the names of the parameters that changed.
            pub fn apply(&mut self, o: &ProfileOverrides) -> Vec<&'static str> {
                let mut changed = Vec::new();
                $( if let Some(v) = &o.$name { self.$part.$name = v.clone(); changed.push(stringify!($name)); } )*
                changed
            }

            /// One row per parameter, in list order; an overridden one's source says so.
            pub fn table(&self, sources: &ProfileSources, overridden: &[&str]) -> Vec<$crate::profile::ParamRow> {
                vec![ $( $crate::profile::ParamRow {
                    profile: self.name.clone(),
                    parameter: stringify!($name),
                    part: $crate::profile::parts::ProfilePart::part(&self.$part),
                    value: serde_json::to_value(&self.$part.$name).unwrap_or(serde_json::Value::Null),
                    overridden: overridden.contains(&stringify!($name)),
                    source: if overridden.contains(&stringify!($name)) { "scenario override" } else { sources.$part.$name },
                    doc: concat!($($doc),*).trim_start(),
                }, )* ]
            }

            pub const PARAMETER_NAMES: &'static [&'static str] = &[ $( stringify!($name) ),* ];
        }
    };
}

/// Sorts `part.name: Type` entries into the piles of the four parts (the bracketed lists, in
/// the order nic, link, switch, host), then defines each part from its pile.
macro_rules! split_parts {
    ([$($nic:tt)*] [$($link:tt)*] [$($switch:tt)*] [$($host:tt)*] $(#[doc = $doc:literal])* nic . $name:ident : $ty:ty, $($rest:tt)*) => {
        $crate::profile::define::split_parts! { [$($nic)* $(#[doc = $doc])* $name : $ty,] [$($link)*] [$($switch)*] [$($host)*] $($rest)* }
    };
    ([$($nic:tt)*] [$($link:tt)*] [$($switch:tt)*] [$($host:tt)*] $(#[doc = $doc:literal])* link . $name:ident : $ty:ty, $($rest:tt)*) => {
        $crate::profile::define::split_parts! { [$($nic)*] [$($link)* $(#[doc = $doc])* $name : $ty,] [$($switch)*] [$($host)*] $($rest)* }
    };
    ([$($nic:tt)*] [$($link:tt)*] [$($switch:tt)*] [$($host:tt)*] $(#[doc = $doc:literal])* switch . $name:ident : $ty:ty, $($rest:tt)*) => {
        $crate::profile::define::split_parts! { [$($nic)*] [$($link)*] [$($switch)* $(#[doc = $doc])* $name : $ty,] [$($host)*] $($rest)* }
    };
    ([$($nic:tt)*] [$($link:tt)*] [$($switch:tt)*] [$($host:tt)*] $(#[doc = $doc:literal])* host . $name:ident : $ty:ty, $($rest:tt)*) => {
        $crate::profile::define::split_parts! { [$($nic)*] [$($link)*] [$($switch)*] [$($host)* $(#[doc = $doc])* $name : $ty,] $($rest)* }
    };
    ([$($nic:tt)*] [$($link:tt)*] [$($switch:tt)*] [$($host:tt)*]) => {
        $crate::profile::define::profile_part! { Nic, NicParams, NicSources, NicOverrides, "The NIC part: each HCA's send and receive engines, DMA, transport and ODP.", $($nic)* }
        $crate::profile::define::profile_part! { Link, LinkParams, LinkSources, LinkOverrides, "The link part: each cable's generation, width, MTU, delay and buffers.", $($link)* }
        $crate::profile::define::profile_part! { Switch, SwitchParams, SwitchSources, SwitchOverrides, "The switch part: each switch's traversal.", $($switch)* }
        $crate::profile::define::profile_part! { Host, HostParams, HostSources, HostOverrides, "The host part: each host's CPU, kernel and verbs calls.", $($host)* }

        /// A complete hardware profile: its name and its four parts. Times are in nanoseconds
        /// unless the name says otherwise. Serialized flat (one map of every parameter), as
        /// before the parts were typed.
        #[derive(Clone, Debug, serde::Serialize, serde::Deserialize, PartialEq)]
        pub struct HwProfile {
            pub name: String,
            #[serde(flatten)]
            pub nic: NicParams,
            #[serde(flatten)]
            pub link: LinkParams,
            #[serde(flatten)]
            pub switch: SwitchParams,
            #[serde(flatten)]
            pub host: HostParams,
        }

        /// Where each parameter's value comes from, part by part.
        #[derive(Clone, Debug)]
        pub struct ProfileSources {
            pub nic: NicSources,
            pub link: LinkSources,
            pub switch: SwitchSources,
            pub host: HostSources,
        }
    };
}

/// One part: its parameters, their sources, their optional values, and the part it is.
macro_rules! profile_part {
    ($part:ident, $params:ident, $sources:ident, $overrides:ident, $about:literal, $( $(#[doc = $doc:literal])* $name:ident : $ty:ty, )*) => {
        #[doc = $about]
        #[derive(Clone, Debug, serde::Serialize, serde::Deserialize, PartialEq)]
        pub struct $params {
            $( $(#[doc = $doc])* pub $name: $ty, )*
        }

        impl $params {
            /// Its parameters' names, in list order.
            pub const NAMES: &'static [&'static str] = &[ $( stringify!($name) ),* ];
        }

        impl $crate::profile::parts::ProfilePart for $params {
            const PART: $crate::profile::parts::Part = $crate::profile::parts::Part::$part;
        }

        /// Where each of the part's values comes from.
        #[derive(Clone, Debug)]
        pub struct $sources {
            $( pub $name: &'static str, )*
        }

        /// Any subset of the part's parameters (unknown keys refused).
        #[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct $overrides {
            $( #[serde(default)] pub $name: Option<$ty>, )*
        }

        /// The same values as overrides of a whole profile (the other parts' left unset).
        impl From<&$overrides> for ProfileOverrides {
            fn from(o: &$overrides) -> ProfileOverrides {
                ProfileOverrides { $( $name: o.$name.clone(), )* ..Default::default() }
            }
        }
    };
}

pub(crate) use {profile_part, profile_params, split_parts};
