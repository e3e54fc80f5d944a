//! A user's schema, generated as a Rust user of prost and tonic would generate it: prost-build's
//! messages and pbjson-build's serde impls (the proto3 JSON mapping, with the .proto's field
//! names as the other workers write it), into OUT_DIR; and `user_schema.rs`, the module tree
//! that includes them and the dispatch table `src/userschema` reads: one type per method of the
//! schema's services (an `Rpc` over its generated request and reply), found by its key
//! "package.Service/Method". Without `RPCARENA_USER_SCHEMA` the table is empty: the worker is
//! built exactly as before, with no user's methods.

#[path = "packageless.rs"]
mod packageless;

use heck::{ToSnakeCase, ToUpperCamelCase};
use prost::Message;
use prost_types::{DescriptorProto, FileDescriptorProto, FileDescriptorSet};
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;
use std::{env, fs};

const VAR: &str = "RPCARENA_USER_SCHEMA";
/// The well-known types: pbjson-types' (prost's types with serde impls, as the pbjson
/// documentation has users map them), with the two its serde gets wrong written by the worker.
const WELL_KNOWN: &str = ".google.protobuf";
const WELL_KNOWN_RUST: &str = "crate::userschema::well_known";

const EMPTY: &str = "/// No user's schema in this build (`RPCARENA_USER_SCHEMA` was not set).
pub fn visit<V: crate::userschema::UserVisitor>(_key: &str, _visitor: V) -> Option<Result<V::Out, String>> {
    None
}

/// No message of a user's schema for an Any to hold.
pub fn any_type(_name: &str) -> Option<crate::userschema::well_known::AnyType> {
    None
}
";

pub fn generate() {
    println!("cargo:rerun-if-env-changed={VAR}");
    let out = env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    let table = match env::var(VAR) {
        Ok(path) if !path.is_empty() => compile(Path::new(&path), Path::new(&out)),
        _ => EMPTY.to_string(),
    };
    fs::write(Path::new(&out).join("user_schema.rs"), table).expect("write user_schema.rs");
}

/// Generates the schema's code and returns its module tree and dispatch table.
fn compile(path: &Path, out: &Path) -> String {
    println!("cargo:rerun-if-changed={}", path.display());
    let bytes = fs::read(path).unwrap_or_else(|e| panic!("{VAR}={}: {e}", path.display()));
    let set = FileDescriptorSet::decode(bytes.as_slice()).unwrap_or_else(|e| panic!("{VAR}={}: not a descriptor set: {e}", path.display()));
    if let Some(file) = set.file.iter().find(|f| f.syntax() == "editions") {
        // prost-build reads proto2 and proto3 only (tokio-rs/prost#1031): the manifest's user_lacks
        // "editions" keeps rpcarena from asking this build for any method of such a schema.
        println!("cargo:warning={} is a file of protobuf editions, which prost-build cannot read: no user's method built", file.name());
        return EMPTY.to_string();
    }
    let set = packageless::packaged(set);
    let own: Vec<FileDescriptorProto> = set.file.iter().filter(|f| !is_well_known(f.package())).cloned().collect();
    generate_code(set, out);
    modules(&packages(&own), out) + &table(&own) + &any_types(&own)
}

/// prost's messages and pbjson's serde impls of the user's packages, into `out`.
fn generate_code(set: FileDescriptorSet, out: &Path) {
    let packages: Vec<String> = packages(&set.file).iter().filter(|p| !is_well_known(p)).map(|p| format!(".{p}")).collect();
    let bytes = set.encode_to_vec();
    // The whole set, imports included: prost resolves every field's type in it, and generates
    // nothing for the extern well-known types.
    prost_build::Config::new()
        .out_dir(out)
        .btree_map(["."]) // a deterministic encoding: the reply file's requests are looked up by it
        .compile_well_known_types() // so that the extern path below replaces prost's own default
        .extern_path(WELL_KNOWN, WELL_KNOWN_RUST)
        .compile_fds(set)
        .unwrap_or_else(|e| panic!("prost-build over {VAR}: {e}"));
    pbjson_build::Builder::new()
        .out_dir(out)
        .register_descriptors(&bytes)
        .expect("the descriptor set decoded above")
        .extern_path(WELL_KNOWN, WELL_KNOWN_RUST)
        .btree_map(["."])
        .preserve_proto_field_names()
        .use_integers_for_enums()
        .build(&packages)
        .unwrap_or_else(|e| panic!("pbjson-build over {VAR}: {e}"));
}

fn is_well_known(package: &str) -> bool {
    format!(".{package}").starts_with(WELL_KNOWN)
}

fn packages(files: &[FileDescriptorProto]) -> Vec<String> {
    let mut found: Vec<String> = files.iter().map(|f| f.package().to_string()).collect();
    found.sort();
    found.dedup();
    found
}

/// One module a package segment, as prost's `include_file` nests them (its generated code names
/// other packages' types by `super::` paths), each including prost's and pbjson's files where they
/// wrote one (a package of imports only, such as a schema's root file, has none).
fn modules(packages: &[String], out: &Path) -> String {
    #[derive(Default)]
    struct Node(BTreeMap<String, Node>, Option<String>);
    let mut root = Node::default();
    for package in packages {
        let node = package.split('.').fold(&mut root, |node, segment| node.0.entry(segment.to_string()).or_default());
        node.1 = Some(package.clone());
    }
    fn write(node: &Node, out: &Path, text: &mut String) {
        if let Some(package) = &node.1 {
            for file in [format!("{package}.rs"), format!("{package}.serde.rs")] {
                if out.join(&file).exists() {
                    let _ = writeln!(text, "include!(concat!(env!(\"OUT_DIR\"), \"/{file}\"));");
                }
            }
        }
        for (segment, child) in &node.0 {
            let _ = writeln!(text, "pub mod {} {{", snake(segment));
            write(child, out, text);
            text.push_str("}\n");
        }
    }
    let mut text = String::from("#[allow(clippy::all, clippy::pedantic, dead_code, non_camel_case_types)]\npub mod types {\n");
    write(&root, out, &mut text);
    text + "}\n"
}

/// A type per method (unary, a one-way or a bidirectional stream) and `visit`.
fn table(files: &[FileDescriptorProto]) -> String {
    let (mut types, mut arms) = (String::new(), String::new());
    for file in files {
        for service in &file.service {
            let full = qualified(packageless::schema_name(file.package()), service.name());
            for method in &service.method {
                let n = arms.lines().count();
                let key = format!("{full}/{}", method.name());
                let streams = match (method.client_streaming(), method.server_streaming()) {
                    (false, false) => "Neither",
                    (true, false) => "Client",
                    (false, true) => "Server",
                    (true, true) => "Both",
                };
                let _ = writeln!(types, "pub struct Method{n};\nimpl crate::methods::Rpc for Method{n} {{\n    const SERVICE: &'static str = {full:?};\n    const NAME: &'static str = {:?};\n    type Req = {};\n    type Resp = {};\n}}\nimpl crate::userschema::UserRpc for Method{n} {{\n    const STREAMS: crate::userschema::Streams = crate::userschema::Streams::{streams};\n}}",
                    method.name(), rust_type(files, method.input_type()), rust_type(files, method.output_type()));
                let _ = writeln!(arms, "        {key:?} => Some(Ok(visitor.visit::<Method{n}>())),");
            }
        }
    }
    format!("{types}\npub fn visit<V: crate::userschema::UserVisitor>(key: &str, visitor: V) -> Option<Result<V::Out, String>> {{\n    match key {{\n{arms}        _ => None,\n    }}\n}}\n")
}

fn qualified(package: &str, name: &str) -> String {
    if package.is_empty() {
        name.to_string()
    } else {
        format!("{package}.{name}")
    }
}

/// `any_type`: every message of the schema (nested ones too, map entries aside) by its full
/// name, for an Any's JSON (`well_known::Any`).
fn any_types(files: &[FileDescriptorProto]) -> String {
    fn walk(files: &[FileDescriptorProto], scope: &str, messages: &[DescriptorProto], arms: &mut String) {
        for message in messages.iter().filter(|m| !m.options.as_ref().is_some_and(|o| o.map_entry())) {
            let full = format!("{scope}.{}", message.name());
            let _ = writeln!(
                arms,
                "        {:?} => Some(AnyType::of::<{}>(false)),",
                packageless::schema_name(&full[1..]),
                rust_type(files, &full)
            );
            walk(files, &full, &message.nested_type, arms);
        }
    }
    let mut arms = String::new();
    for file in files {
        let scope = if file.package().is_empty() { String::new() } else { format!(".{}", file.package()) };
        walk(files, &scope, &file.message_type, &mut arms);
    }
    format!("\n/// A message of the schema by its full name, for an Any's JSON.\npub fn any_type(name: &str) -> Option<crate::userschema::well_known::AnyType> {{\n    use crate::userschema::well_known::AnyType;\n    match name {{\n{arms}        _ => None,\n    }}\n}}\n")
}

/// ".pkg.Outer.Inner" -> "types::pkg::outer::Inner"; a well-known type -> "crate::userschema::well_known::Name".
fn rust_type(files: &[FileDescriptorProto], full: &str) -> String {
    if full.starts_with(&format!("{WELL_KNOWN}.")) {
        return format!("{WELL_KNOWN_RUST}::{}", &full[WELL_KNOWN.len() + 1..]);
    }
    let package = files
        .iter()
        .map(|f| f.package())
        .filter(|p| full.starts_with(&format!(".{p}.")) || p.is_empty())
        .max_by_key(|p| p.len())
        .unwrap_or("");
    let nested: Vec<&str> = full[package.len() + 1..].trim_start_matches('.').split('.').collect();
    let mut path: Vec<String> = vec!["types".into()];
    path.extend(package.split('.').filter(|s| !s.is_empty()).map(snake));
    path.extend(nested[..nested.len() - 1].iter().map(|s| snake(s)));
    path.push(camel(nested[nested.len() - 1]));
    path.join("::")
}

/// prost's module names: snake case, a Rust keyword made a raw identifier.
fn snake(name: &str) -> String {
    let ident = name.to_snake_case();
    match ident.as_str() {
        "self" | "super" | "crate" | "extern" => format!("{ident}_"),
        "as" | "break" | "const" | "continue" | "else" | "enum" | "false" | "fn" | "for" | "if" | "impl" | "in" | "let" | "loop"
        | "match" | "mod" | "move" | "mut" | "pub" | "ref" | "return" | "static" | "struct" | "trait" | "true" | "type" | "unsafe"
        | "use" | "where" | "while" | "dyn" | "abstract" | "become" | "box" | "do" | "final" | "macro" | "override" | "priv" | "typeof"
        | "unsized" | "virtual" | "yield" | "async" | "await" | "try" | "gen" => format!("r#{ident}"),
        _ => ident,
    }
}

/// prost's type names: upper camel case, `Self` escaped.
fn camel(name: &str) -> String {
    match name.to_upper_camel_case().as_str() {
        "Self" => "Self_".into(),
        ident => ident.into(),
    }
}
