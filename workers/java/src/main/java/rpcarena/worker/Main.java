package rpcarena.worker;

import java.io.PrintStream;
import java.util.Arrays;

/** The worker executable: {@code serve ...}, {@code drive < spec.json}, {@code list} or {@code calibrate ...}. */
public final class Main {
    private Main() {}

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        String command = args.length == 0 ? "" : args[0];
        String[] rest = Arrays.copyOfRange(args, Math.min(1, args.length), args.length);
        return switch (command) {
            case "serve" -> ServeCommand.run(rest, System.in, out, err);
            case "drive" -> DriveCommand.run(rest, System.in, out, err);
            case "list" -> ListCommand.run(out);
            case "calibrate" -> CalibrateCommand.run(rest, out, err);
            default -> {
                err.println("usage: worker serve --contender ID --host 127.0.0.1 --port 0 | " + DriveCommand.USAGE + " | list | "
                        + CalibrateCommand.USAGE);
                yield 2;
            }
        };
    }
}
