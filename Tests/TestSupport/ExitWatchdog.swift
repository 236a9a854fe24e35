import Foundation
import SyncServer

#if canImport(Glibc)
import Glibc
#endif

/// Cleans up after the test process however it ends. `atexit` handlers run only on a normal exit;
/// a crash, a `kill -9` or a runner that ends the process by signal would leave the servers a
/// test started running. A small shell loop outside the process watches it and runs the cleanup
/// within half a second of it going; it also ends by itself once `alsoEndsWith` has ended.
package enum ExitWatchdog {
    /// Runs `cleanup` (a shell command) when `watched` (this process by default) has ended.
    /// - Parameter alsoEndsWith: a child process whose own end makes the watchdog unnecessary.
    package static func run(_ cleanup: String, watching watched: Int32 = getpid(), alsoEndsWith child: Int32? = nil) {
        let childAlive = child.map { " && kill -0 \($0) 2>/dev/null" } ?? ""
        // posix_spawn through ChildProcess, not Foundation's Process: its run() crashed once in a
        // memcpy while many tests started processes at once.
        _ = try? ChildProcess.spawn("/bin/sh", ["-c", "while kill -0 \(watched) 2>/dev/null\(childAlive); do sleep 0.5; done; \(cleanup)"], stdout: "/dev/null")
    }
}
