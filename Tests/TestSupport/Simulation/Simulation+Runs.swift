import Foundation
import SeededRandom
import SyncServer

/// The two server instances the devices reach through a round-robin balancer: one database, one
/// blob folder, one token secret, one clock.
public struct SimServers: Sendable {
    public let first: TestServer
    public let second: TestServer
    var all: [TestServer] { [first, second] }
}

extension Simulation {
    /// Two server instances configured for the simulation: tombstones kept an hour, so that a
    /// purge step (the clock moved two hours) expires the cursors of devices that missed a deletion.
    public static func withServer(_ body: (SimServers) async throws -> Void) async throws {
        try await TestServer.withTwoInstances(configure: { $0.tombstoneRetention = retention }) { try await body(SimServers(first: $0, second: $1)) }
    }

    /// The outcome of a run of many seeded histories.
    public struct Outcome: Sendable {
        /// Histories run.
        public var histories = 0
        /// The first failure: its index, the broken invariant, and the shortest history that still fails.
        public var failure: (index: Int, reason: String, shortest: SimScenario, shortestReason: String)?
        /// Every failing history (index and broken invariant), when the run went on past failures.
        public var failures: [(index: Int, reason: String)] = []
    }

    /// Runs `count` histories derived from `seed` (history `i` from `SplitMix.derive(seed, i)`), in
    /// a vault of `kind` (``SimScenario/generate(seed:kind:)``).
    /// Stops at the first failure and shrinks it, or with `keepGoing` runs them all and lists the
    /// failures (replay one with its index to shrink it).
    public static func runMany(
        seed: UInt64, count: Int, from start: Int = 0, on server: SimServers, kind: SimScenario.Kind = .plain, keepGoing: Bool = false,
        progress: (Int, Int) -> Void = { _, _ in }, failed: (Int, String) -> Void = { _, _ in }
    ) async throws -> Outcome {
        var outcome = Outcome()
        for index in start..<(start + count) {
            let scenario = SimScenario.generate(seed: SplitMix.derive(seed, index), kind: kind)
            outcome.histories += 1
            defer { progress(outcome.histories, outcome.failures.count) }
            guard let reason = try await run(scenario, on: server) else { continue }
            failed(index, reason)
            outcome.failures.append((index, reason))
            if keepGoing { continue }
            let (shortest, shortestReason) = try await shrink(scenario, reason, on: server)
            outcome.failure = (index, reason, shortest, shortestReason)
            break
        }
        return outcome
    }

    /// Removes steps while the history still fails: halves first, down to single steps.
    public static func shrink(_ scenario: SimScenario, _ reason: String, on server: SimServers, attempts limit: Int = 400) async throws -> (SimScenario, String) {
        var best = (scenario, reason)
        var chunk = max(1, scenario.operations.count / 2)
        var attempts = 0
        while chunk >= 1 && attempts < limit {
            var start = 0
            var removedAny = false
            while start < best.0.operations.count && attempts < limit {
                var candidate = best.0
                candidate.operations.removeSubrange(start..<min(start + chunk, candidate.operations.count))
                attempts += 1
                if let failure = try await run(candidate, on: server) {
                    best = (candidate, failure)
                    removedAny = true
                } else {
                    start += chunk
                }
            }
            if !removedAny { chunk /= 2 }
        }
        return best
    }
}
