//! A file of a user's schema without a `package`, given one for its generated code only:
//! pbjson-build cannot read such a file (it expects a package), so its types are generated under
//! the package [`PACKAGE`] and every reference to them follows. What the schema names on the wire
//! (a method's gRPC path, an Any's type URL) is the schema's own: [`schema_name`].

use prost_types::{DescriptorProto, FieldDescriptorProto, FileDescriptorProto, FileDescriptorSet};
use std::collections::HashSet;

/// The package given to package-less files: one no schema has by chance.
pub const PACKAGE: &str = "rpcarena_packageless";

/// The set with every package-less file in [`PACKAGE`].
pub fn packaged(mut set: FileDescriptorSet) -> FileDescriptorSet {
    let tops: HashSet<String> = set
        .file
        .iter()
        .filter(|f| f.package().is_empty())
        .flat_map(|f| f.message_type.iter().map(|m| m.name().to_string()).chain(f.enum_type.iter().map(|e| e.name().to_string())))
        .collect();
    if tops.is_empty() {
        return set;
    }
    for file in &mut set.file {
        if file.package().is_empty() {
            file.package = Some(PACKAGE.into());
        }
        retype_file(file, &tops);
    }
    set
}

/// "pkg.Service" or "pkg.Msg" as the schema names it.
pub fn schema_name(full: &str) -> &str {
    match full.strip_prefix(PACKAGE) {
        Some("") => "",
        Some(rest) if rest.starts_with('.') => &rest[1..],
        _ => full,
    }
}

fn retype_file(file: &mut FileDescriptorProto, tops: &HashSet<String>) {
    file.message_type.iter_mut().for_each(|m| retype_message(m, tops));
    file.extension.iter_mut().for_each(|f| retype_field(f, tops));
    for method in file.service.iter_mut().flat_map(|s| s.method.iter_mut()) {
        retype(&mut method.input_type, tops);
        retype(&mut method.output_type, tops);
    }
}

fn retype_message(message: &mut DescriptorProto, tops: &HashSet<String>) {
    message.field.iter_mut().chain(message.extension.iter_mut()).for_each(|f| retype_field(f, tops));
    message.nested_type.iter_mut().for_each(|m| retype_message(m, tops));
}

fn retype_field(field: &mut FieldDescriptorProto, tops: &HashSet<String>) {
    retype(&mut field.type_name, tops);
    retype(&mut field.extendee, tops);
}

/// ".Order.Line" -> ".rpcarena_packageless.Order.Line" when "Order" is declared in a package-less file.
fn retype(name: &mut Option<String>, tops: &HashSet<String>) {
    if let Some(full) = name {
        let top = full.trim_start_matches('.').split('.').next().unwrap_or_default();
        if full.starts_with('.') && tops.contains(top) {
            *full = format!(".{PACKAGE}{full}");
        }
    }
}
