package rpcarena.worker;

import java.io.PrintStream;
import rpcarena.worker.core.Json;
import rpcarena.worker.userschema.Cost;

/**
 * {@code calibrate --server-work-us W [--calls N]}: a handler's --server-work run alone, as a server
 * runs it, and how much of its thread's CPU it spent (benchmarks/server_work.py checks each
 * language's against the asked).
 */
final class CalibrateCommand {
    static final String USAGE = "calibrate --server-work-us W [--calls N]";

    private CalibrateCommand() {}

    static int run(String[] args, PrintStream out, PrintStream err) {
        double workUs = 0;
        int calls = 1000;
        try {
            for (int i = 0; i + 1 < args.length; i += 2) {
                switch (args[i]) {
                    case "--server-work-us" -> workUs = Double.parseDouble(args[i + 1]);
                    case "--calls" -> calls = Integer.parseInt(args[i + 1]);
                    default -> throw new IllegalArgumentException(args[i]);
                }
            }
        } catch (IllegalArgumentException e) {
            workUs = 0;
        }
        if (workUs <= 0 || calls < 1 || args.length % 2 != 0) {
            err.println("worker: calibrate: give --server-work-us above 0 and --calls of 1 or more; usage: " + USAGE);
            return 2;
        }
        Cost cost = Cost.of(workUs, 0);
        long spent = cost.spendTimes(calls);
        out.println(Json.MAPPER.createObjectNode().put("asked_us", workUs).put("calls", calls)
                .put("thread_cpu_ns", spent).put("calibration", cost.calibration()));
        return 0;
    }
}
