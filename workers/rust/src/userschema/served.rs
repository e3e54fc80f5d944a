//! served.json, what `serve --schema PATH` reads (`ServedFile` in
//! src/rpcarena/userschema/workload.py): the method, the reply mode with its [request, reply]
//! pairs in proto JSON, the handler's work and wait, and a server stream's replies a call. The
//! descriptor set it also carries is not read: the generated code built into this variant has the
//! schema.

use super::answer::Responder;
use super::work::Cost;
use super::{UserRpc, UserVisitor};
use serde::Deserialize;
use serde_json::Value;
use std::sync::Arc;

/// The bound on the pairs a server keeps: the samples' own (`MAX_SAMPLES` in userschema/samples.py).
const MAX_PAIRS: usize = 100_000;
/// The most replies a served file may ask of a server stream (the Python side's
/// `--stream-messages` bound, `MAX_STREAM_MESSAGES` in userschema/workload.py).
const MAX_STREAM_MESSAGES: usize = 10_000;

#[derive(Debug, Clone, Deserialize)]
pub struct File {
    /// "pkg.Service/Method".
    pub method: String,
    /// echo, file or size.
    pub reply: String,
    #[serde(default)]
    pub pairs: Vec<(Value, Value)>,
    #[serde(default)]
    pub server_work_us: f64,
    #[serde(default)]
    pub server_wait_us: f64,
    /// A server stream's replies a call (the handler's answer, this many times); a client
    /// stream's requests a call are the caller's, so the server only reads them.
    #[serde(default = "one")]
    pub stream_messages: usize,
}

fn one() -> usize {
    1
}

impl File {
    /// Reads and checks served.json.
    pub fn read(path: &str) -> Result<File, String> {
        let wrong = |why: String| format!("bad --schema {path}: {why}; give the file rpcarena wrote for the run");
        let text = std::fs::read_to_string(path).map_err(|e| wrong(e.to_string()))?;
        File::parse(&text).map_err(wrong)
    }

    pub fn parse(text: &str) -> Result<File, String> {
        let file: File = serde_json::from_str(text).map_err(|e| e.to_string())?;
        let valid = |x: f64| x >= 0.0 && x.is_finite();
        if !valid(file.server_work_us) || !valid(file.server_wait_us) {
            return Err("a negative or unbounded server work or wait".into());
        }
        if file.pairs.len() > MAX_PAIRS {
            return Err(format!("over {MAX_PAIRS} pairs"));
        }
        if !(1..=MAX_STREAM_MESSAGES).contains(&file.stream_messages) {
            return Err(format!("stream_messages {}: give 1 to {MAX_STREAM_MESSAGES}", file.stream_messages));
        }
        Ok(file)
    }
}

/// The user's method as a server answers it: its answers and its cost (calibrated once).
pub struct Served {
    pub file: File,
    pub cost: Cost,
    /// What the cost was calibrated to, as the server logs it.
    pub calibration: String,
}

impl Served {
    /// Reads served.json, checks its method and pairs against this build's generated types, and
    /// calibrates the handler's cost.
    pub fn load(path: &str) -> Result<Served, String> {
        let file = File::read(path)?;
        super::visit(&file.method, Check(&file)).and_then(|checked| checked.map_err(|e| format!("bad --schema {path}: {e}")))?;
        let (cost, line) = Cost::calibrated(file.server_work_us, file.server_wait_us);
        Ok(Served { calibration: format!("{}: {line}", file.method), file, cost })
    }

    /// The typed handler of method `M` (the one the file names).
    pub fn handler<M: UserRpc>(&self) -> Arc<Handler<M>> {
        let respond = Responder::<M>::new(&self.file.reply, &self.file.pairs).expect("checked by load");
        Arc::new(Handler { respond, cost: self.cost, stream_messages: self.file.stream_messages })
    }
}

struct Check<'a>(&'a File);

impl UserVisitor for Check<'_> {
    type Out = Result<(), String>;
    fn visit<M: UserRpc>(self) -> Self::Out {
        Responder::<M>::new(&self.0.reply, &self.0.pairs).map(drop)
    }
}

/// A method's handler: spends the cost, then answers.
pub struct Handler<M: UserRpc> {
    respond: Responder<M>,
    cost: Cost,
    /// A server stream's replies a call: its one answer, sent this many times.
    pub stream_messages: usize,
}

impl<M: UserRpc> Handler<M> {
    pub async fn answer(&self, request: M::Req) -> Result<M::Resp, String> {
        self.cost.spend().await;
        self.respond.answer(request)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_names_the_method_its_replies_and_its_cost() {
        let file = File::parse(
            r#"{"method": "orders.Orders/Place", "descriptor_set_b64": "", "reply": "file",
            "pairs": [[{"order_id": "A-1"}, {"order_id": "A-1"}]], "server_work_us": 200, "server_wait_us": 2000}"#,
        )
        .unwrap();
        assert_eq!((file.method.as_str(), file.reply.as_str(), file.pairs.len()), ("orders.Orders/Place", "file", 1));
        assert_eq!((file.server_work_us, file.server_wait_us, file.stream_messages), (200.0, 2000.0, 1));
    }

    #[test]
    fn a_server_streams_replies_a_call_are_bounded() {
        let with = |k: &str| File::parse(&format!(r#"{{"method": "a.B/C", "reply": "echo", "stream_messages": {k}}}"#));
        assert_eq!(with("10000").unwrap().stream_messages, 10_000);
        for k in ["0", "10001"] {
            assert_eq!(with(k).unwrap_err(), format!("stream_messages {k}: give 1 to 10000"));
        }
        assert!(with("-1").is_err());
    }

    #[test]
    fn bad_files_say_what_is_wrong() {
        assert!(File::parse("not json").is_err());
        let negative = r#"{"method": "a.B/C", "reply": "echo", "server_work_us": -1}"#;
        assert_eq!(File::parse(negative).unwrap_err(), "a negative or unbounded server work or wait");
        let missing = Served::load("/nonexistent/served.json").err().unwrap();
        assert!(
            missing.starts_with("bad --schema /nonexistent/served.json: ") && missing.ends_with("give the file rpcarena wrote for the run")
        );
    }

    #[test]
    fn a_method_this_build_lacks_names_the_fix() {
        let dir = std::env::temp_dir().join(format!("rpcarena-served-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("served.json");
        for (method, want) in [("nowhere.Service/Call", "not built with the schema"), ("Call", "give package.Service/Method")] {
            std::fs::write(&path, format!(r#"{{"method": "{method}", "reply": "echo"}}"#)).unwrap();
            let error = Served::load(path.to_str().unwrap()).err().unwrap();
            assert!(error.contains(want), "{error}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_checked_method_answers_after_spending_its_cost() {
        let file = File::parse(r#"{"method": "arena.Arena/SayHello", "reply": "echo", "server_wait_us": 10}"#).unwrap();
        let (cost, _) = Cost::calibrated(file.server_work_us, file.server_wait_us);
        let served = Served { file, cost, calibration: String::new() };
        let handler = served.handler::<super::super::answer::tests::SayHello>();
        let reply = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap()
            .block_on(handler.answer(crate::proto::HelloRequest { name: "ada".into() }));
        assert_eq!(reply.unwrap().message, "ada");
    }
}
