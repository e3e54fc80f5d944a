package rpcarena.worker.grpc;

import io.grpc.CallOptions;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** Blocking unary calls on the client's channel (its own or a shared one), each with the spec's deadline. */
final class UnaryConnection extends LeasedConnection {
    UnaryConnection(Channels.Lease lease, ProtoPayloads payloads, Duration timeout) {
        super(lease, payloads, timeout);
    }

    @Override
    public Object exchange(int slot) throws Exception {
        try {
            return ClientCalls.blockingUnaryCall(channel, payloads.method.descriptor(),
                    CallOptions.DEFAULT.withDeadlineAfter(timeoutNs, TimeUnit.NANOSECONDS), payloads.request(slot));
        } catch (StatusRuntimeException e) {
            throw GrpcFailures.of(e);
        }
    }
}
