package rpcarena.worker.restjackson;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import rpcarena.worker.core.Spec;
import rpcarena.worker.core.SpecError;
import rpcarena.worker.http.HttpPayloads;
import rpcarena.worker.userschema.UserMethod;

/** A spec's requests and expected replies of a user's method, parsed once into its generated messages. */
final class UserPayloads implements HttpPayloads {
    private final UserJson json;
    private final Message reply;
    private final Message[] requests;
    private final Message[] responses;

    private UserPayloads(UserJson json, Message reply, Message[] requests, Message[] responses) {
        this.json = json;
        this.reply = reply;
        this.requests = requests;
        this.responses = responses;
    }

    static UserPayloads decode(Spec spec, UserMethod method) throws SpecError {
        spec.requirePairs();
        UserJson json = new UserJson(method);
        return new UserPayloads(json, method.reply(), parseAll(json, spec.requests(), method.request()),
                parseAll(json, spec.responses(), method.reply()));
    }

    private static Message[] parseAll(UserJson json, List<JsonNode> nodes, Message prototype) throws SpecError {
        Message[] out = new Message[nodes.size()];
        for (int i = 0; i < out.length; i++) {
            try {
                out[i] = json.read(nodes.get(i).toString().getBytes(StandardCharsets.UTF_8), prototype);
            } catch (InvalidProtocolBufferException e) {
                throw new SpecError("payload " + i + " is not a " + prototype.getDescriptorForType().getFullName()
                        + ": " + e.getMessage());
            }
        }
        return out;
    }

    @Override
    public int slots() {
        return requests.length;
    }

    @Override
    public String contentType() {
        return UserJson.CONTENT_TYPE;
    }

    @Override
    public byte[] request(int slot) throws IOException {
        return json.write(requests[slot]);
    }

    @Override
    public Object reply(byte[] body) throws IOException {
        return json.read(body, reply);
    }

    /** Message equality: every field, as Go's proto.Equal. */
    @Override
    public boolean matches(int slot, Object reply) {
        return responses[slot].equals(reply);
    }
}
