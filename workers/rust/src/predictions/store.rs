//! Reads the seed's hashes with a real Redis client: one multiplexed connection (redis-rs
//! `ConnectionManager`, reconnecting on failure) shared by every request of the server.

use super::Scores;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use std::collections::BTreeMap;
use std::time::Duration;

/// Bounds the check, at startup, that the Redis answers.
const OPEN_TIMEOUT: Duration = Duration::from_secs(5);

/// The URL as redis-rs reads it. rpcarena's own Redis listens on a unix socket and asks a
/// password, given as `unix://:PASSWORD@/PATH?db=N` (go-redis and redis-py read that as is);
/// redis-rs reads a socket's user and password from `?user=` and `?pass=` only.
pub fn redis_rs_url(url: &str) -> String {
    let Some((userinfo, path)) = url.strip_prefix("unix://").and_then(|rest| rest.split_once('@')) else {
        return url.to_string();
    };
    let (user, pass) = userinfo.split_once(':').unwrap_or((userinfo, ""));
    let given = [("user", user), ("pass", pass)];
    let params: Vec<String> = given.iter().filter(|(_, v)| !v.is_empty()).map(|(k, v)| format!("{k}={v}")).collect();
    if params.is_empty() {
        return format!("unix://{path}");
    }
    let sep = if path.contains('?') { '&' } else { '?' };
    format!("unix://{path}{sep}{}", params.join("&"))
}

#[derive(Clone)]
pub struct Store {
    redis: ConnectionManager,
}

impl Store {
    /// Connects to the Redis at `url` (`redis://HOST:PORT/DB`) and checks that it answers PING.
    pub async fn open(url: &str) -> Result<Store, String> {
        let client = redis::Client::open(redis_rs_url(url))
            .map_err(|e| format!("--redis {url:?}: {e} (expected redis://HOST:PORT/DB or unix://:PASSWORD@/PATH?db=N)"))?;
        // No response timeout of redis-rs's own (500 ms): a slow Redis shows as latency, and the
        // driver's timeout counts it.
        let config = ConnectionManagerConfig::new().set_response_timeout(None).set_number_of_retries(1);
        let connect = async {
            let mut redis = client.get_connection_manager_with_config(config).await?;
            redis::cmd("PING").query_async::<String>(&mut redis).await?;
            Ok::<_, redis::RedisError>(redis)
        };
        let unanswered = |why: String| format!("Redis at {url} does not answer ({why}): start it or fix --redis");
        match tokio::time::timeout(OPEN_TIMEOUT, connect).await {
            Ok(Ok(redis)) => Ok(Store { redis }),
            Ok(Err(e)) => Err(unanswered(e.to_string())),
            Err(_) => Err(unanswered(format!("no answer within {OPEN_TIMEOUT:?}"))),
        }
    }

    /// The Redis key of one client's hash.
    pub fn key(id_client: &str) -> String {
        format!("predictions:{id_client}")
    }

    /// One client's hash via HGETALL, scores parsed as f32; an unknown client has none.
    pub async fn scores(&self, id_client: &str) -> Result<Scores, String> {
        let key = Self::key(id_client);
        let mut redis = self.redis.clone();
        let fields: BTreeMap<String, String> =
            redis::cmd("HGETALL").arg(&key).query_async(&mut redis).await.map_err(|e| format!("redis: {e}"))?;
        let parse = |(name, text): (String, String)| match text.trim().parse::<f32>() {
            Ok(value) => Ok((name, value)),
            Err(_) => Err(format!("{key} {name}: score {text:?} is not a number")),
        };
        fields.into_iter().map(parse).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::redis_rs_url;

    #[test]
    fn a_socket_password_moves_to_where_redis_rs_reads_it() {
        assert_eq!(redis_rs_url("unix://:s3cret@/tmp/r/redis.sock?db=0"), "unix:///tmp/r/redis.sock?db=0&pass=s3cret");
        assert_eq!(redis_rs_url("unix://me:pw@/tmp/r.sock"), "unix:///tmp/r.sock?user=me&pass=pw");
        assert_eq!(redis_rs_url("redis://:pw@127.0.0.1:6379/0"), "redis://:pw@127.0.0.1:6379/0");
        assert_eq!(redis_rs_url("unix:///tmp/r.sock?db=1"), "unix:///tmp/r.sock?db=1");
    }
}
