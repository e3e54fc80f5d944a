package rpcarena.worker.userschema;

import com.google.protobuf.Message;
import java.io.PrintStream;
import java.nio.file.Path;
import rpcarena.worker.core.SpecError;

/** A user's method as a server answers it: served.json's method, replies and handler cost. */
public final class UserHandler {
    private final UserMethod method;
    private final Responder responder;
    private final Cost cost;
    private final int streamMessages;

    private UserHandler(UserMethod method, Responder responder, Cost cost, int streamMessages) {
        this.method = method;
        this.responder = responder;
        this.cost = cost;
        this.streamMessages = streamMessages;
    }

    /** Reads served.json and prepares its method's answers and cost (the CPU spin calibrated once). */
    public static UserHandler load(Path path) throws SpecError {
        ServedFile file = ServedFile.read(path);
        UserMethod method = UserMethod.lookup(file.method());
        Responder responder;
        try {
            responder = Responder.of(file.reply(), file.pairs(), method);
        } catch (SpecError e) {
            throw new SpecError("bad --schema " + path + ": " + e.getMessage());
        }
        return new UserHandler(method, responder, Cost.of(file.serverWorkUs(), file.serverWaitUs()),
                file.streamMessages());
    }

    /** The handler of --schema PATH, its calibration logged on {@code err} as the Python servers log it. */
    public static UserHandler open(Path path, PrintStream err) throws SpecError {
        UserHandler handler = load(path);
        err.println("rpcarena: " + handler.calibration());
        err.flush();
        return handler;
    }

    public UserMethod method() {
        return method;
    }

    /** The replies a server-streaming call gets: the handler's one answer, this many times. */
    public int streamMessages() {
        return streamMessages;
    }

    public String calibration() {
        return method.key() + ": " + cost.calibration();
    }

    /** Spends the handler's cost, then answers; Refused for a request the run does not answer. */
    public Message answer(Message request) {
        cost.spend();
        return responder.answer(request);
    }
}
