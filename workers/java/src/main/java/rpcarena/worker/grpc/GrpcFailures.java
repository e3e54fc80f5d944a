package rpcarena.worker.grpc;

import io.grpc.Status;
import java.io.IOException;
import java.util.Locale;
import rpcarena.worker.core.CallFailure;
import rpcarena.worker.core.Failures;

/** grpc-java's errors translated into the contract's kinds at the boundary. */
final class GrpcFailures {
    private GrpcFailures() {}

    static CallFailure of(Throwable e) {
        Status status = Status.fromThrowable(e);
        if (status.getCode() == Status.Code.DEADLINE_EXCEEDED) {
            return new CallFailure(Failures.TIMEOUT, status.toString());
        }
        if (status.getCode() == Status.Code.UNAVAILABLE && causedByIo(e)) {
            return new CallFailure(Failures.CONNECTION, status.toString());  // refused, reset, closed
        }
        return new CallFailure("status_" + status.getCode().name().toLowerCase(Locale.ROOT), status.toString());
    }

    private static boolean causedByIo(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof IOException) {
                return true;
            }
        }
        return false;
    }
}
