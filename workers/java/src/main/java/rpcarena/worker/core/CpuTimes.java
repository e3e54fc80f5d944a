package rpcarena.worker.core;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/** This process's user and system CPU seconds (getrusage's numbers, from /proc/self/stat). */
public record CpuTimes(double userS, double sysS) {
    /** USER_HZ: 100 on every Linux the JVM runs on (sysconf is out of Java's reach). */
    private static final double TICKS_PER_S = 100.0;

    public static CpuTimes now() {
        try {
            String stat = Files.readString(Path.of("/proc/self/stat"));
            // fields after "(comm)": state is field 3, utime 14, stime 15
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return new CpuTimes(Long.parseLong(f[11]) / TICKS_PER_S, Long.parseLong(f[12]) / TICKS_PER_S);
        } catch (IOException | RuntimeException e) {
            return fromMxBean();
        }
    }

    /** Without /proc the split is unknown: all CPU time counts as user time. */
    private static CpuTimes fromMxBean() {
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        return new CpuTimes(os.getProcessCpuTime() / 1e9, 0);
    }

    public CpuTimes minus(CpuTimes earlier) {
        return new CpuTimes(userS - earlier.userS, sysS - earlier.sysS);
    }
}
