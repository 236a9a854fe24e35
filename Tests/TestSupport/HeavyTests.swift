/// Tests that start many processes at once (several server instances, a load balancer, CLI
/// devices moving tens of megabytes) take turns. The whole suite runs in parallel on two cores:
/// two of them together starved the tests that measure time (a state call took 14 s, a push to
/// a local provider timed out).
public enum HeavyTests {
    private static let gate = AsyncGate(1)

    /// Runs `body` when no other heavy test runs.
    public static func oneAtATime<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        await gate.enter()
        do {
            // Its servers take no slot: it never waits for one while others wait for it.
            let result = try await ServerSlots.$heavy.withValue(true) { try await body() }
            await gate.leave()
            return result
        } catch {
            await gate.leave()
            throw error
        }
    }
}
