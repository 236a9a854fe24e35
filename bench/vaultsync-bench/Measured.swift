import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs a program to completion and reports its exit status, wall time and peak resident memory.
/// The peak is the child's `VmHWM`, read from /proc every 20 ms while it runs (`ru_maxrss` from
/// `wait4` would include this large benchmark process, whose memory the child shares until exec);
/// growth in the last 20 ms before exit could be missed. Its output goes to /dev/null.
enum Measured {
    struct Outcome {
        var status: Int32
        var seconds: Double
        var maxRSSKilobytes: Int
    }

    static func run(_ path: String, _ arguments: [String], environment: [String]) throws -> Outcome {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let inherited = ProcessInfo.processInfo.environment.map { "\($0.key)=\($0.value)" }
        let envp = (inherited + environment).map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        let started = ContinuousClock.now
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, path, &actions, nil, argv, envp)
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO) }
        var status: Int32 = 0
        var peak = 0
        while true {
            if let hwm = highWaterMark(pid) { peak = max(peak, hwm) }
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid { break }
            if reaped < 0 && errno != EINTR { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            usleep(20_000)
        }
        let elapsed = ContinuousClock.now - started
        let exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : -1
        return Outcome(status: exitStatus, seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18, maxRSSKilobytes: peak)
    }

    /// `VmHWM` of a running process in kB (nil once it has exited or before it has a memory map).
    private static func highWaterMark(_ pid: pid_t) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
        else { return nil }
        return Int(line.split(separator: " ").dropFirst().first { !$0.isEmpty } ?? "")
    }
}
