/// How many in-process servers the suite runs at once. Swift Testing starts every test together;
/// at some 690 tests, the servers alive at one moment held more than the test cluster's 1,000
/// connections (each keeps a pool of 4 and its listeners) and every test then failed with "too
/// many clients". A test waits here for a slot before its server starts; a second server of the
/// same test (``TestServer/withTwoInstances(configure:clock:_:)``) and a heavy test's
/// (``HeavyTests``) take none, so nothing waits on a slot while holding what a slot holder waits for.
public enum ServerSlots {
    /// Servers at once: some 80 of the cluster's connections. At 48 the suite ran 108 tests at
    /// once on CI's 2 cores and a test that timed a server's answer (an MCP client's 5 s read, a
    /// 15 s idle bound) failed now and then; at 16 each server gets three times the share and
    /// the run took about as long (526 s locally and 623 s from a clean clone, against 578 s at 48:
    /// a run lasts as long as its longest test, `seededHistoriesLoseNothing`; 2026-12-06).
    public static let count = 16

    @TaskLocal static var held = false
    @TaskLocal static var heavy = false
    private static let gate = AsyncGate(count)

    /// Runs `body` holding a slot (unless this task holds one, or runs a heavy test).
    static func with<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        guard !held, !heavy else { return try await body() }
        await gate.enter()
        do {
            let result = try await $held.withValue(true) { try await body() }
            await gate.leave()
            return result
        } catch {
            await gate.leave()
            throw error
        }
    }
}
