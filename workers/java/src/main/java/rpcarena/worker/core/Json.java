package rpcarena.worker.core;

import com.fasterxml.jackson.core.StreamWriteFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;

/** The one Jackson configuration of this worker (specs, results and the http-json wire). */
public final class Json {
    /**
     * Unknown fields are ignored (a reader of canonical JSON must tolerate writers' extras); doubles
     * are written shortest round-trip (Schubfach), as the contract's canonical JSON asks.
     */
    public static final JsonMapper MAPPER = JsonMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(StreamWriteFeature.USE_FAST_DOUBLE_WRITER)
            .build();

    private Json() {}
}
