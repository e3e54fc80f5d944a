package rpcarena.worker.grpc;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;

/** The canonical JSON mapping of one message type as grpc-java carries it here. */
interface MessageJson {
    Object fromJson(JsonNode json) throws IOException;

    JsonNode toJson(Object message);
}
