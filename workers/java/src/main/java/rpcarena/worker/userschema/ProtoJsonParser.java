package rpcarena.worker.userschema;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;

/**
 * Proto JSON read into a generated message as every part of this worker reads it (servers, the
 * reply table, the driver's requests and expected replies): JsonFormat, then the sign of each
 * negative zero JsonFormat drops ({@link NegativeZeros}), so no two of them read a sample apart.
 */
public final class ProtoJsonParser {
    private final JsonFormat.Parser jsonFormat;

    public ProtoJsonParser(JsonFormat.Parser jsonFormat) {
        this.jsonFormat = jsonFormat;
    }

    /** {@code json} as a message of {@code prototype}'s type; a fresh builder, so repeated fields' indices are the JSON's. */
    public Message parse(String json, Message prototype) throws InvalidProtocolBufferException {
        Message.Builder builder = prototype.newBuilderForType();
        jsonFormat.merge(json, builder);
        NegativeZeros.restore(json, builder);
        return builder.build();
    }
}
