import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The harness keeps its promise that no process a test starts outlives the test run.
@Suite struct TestHarnessTests {
    /// Whether `pid` is still a live process (a zombie of ours counts as gone).
    func alive(_ pid: Int32) -> Bool {
        guard kill(pid, 0) == 0 else { return false }
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        return !stat.contains(") Z ")
    }

    func sleeper() throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sleep")
        process.arguments = ["60"]
        try process.run()
        return process
    }

    /// A server started for the tests (moto, the test cluster) is ended by the watchdog when the
    /// test process dies without running its exit handlers (a crash, `kill -9`).
    @Test func theWatchdogEndsAChildWhenItsOwnerDiesWithoutCleaningUp() async throws {
        let owner = try sleeper(), child = try sleeper()
        defer { owner.terminate(); child.terminate() }
        ExitWatchdog.run("kill -9 \(child.processIdentifier)", watching: owner.processIdentifier, alsoEndsWith: child.processIdentifier)
        try await Task.sleep(for: .seconds(1))
        #expect(alive(child.processIdentifier), "the owner still runs: the child must stay")
        kill(owner.processIdentifier, SIGKILL)
        owner.waitUntilExit()  // reaped, as the test runner reaps a dead test process
        let deadline = ContinuousClock.now + .seconds(10)
        while alive(child.processIdentifier) && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(100)) }
        #expect(!alive(child.processIdentifier), "the child outlived its owner")
    }
}
