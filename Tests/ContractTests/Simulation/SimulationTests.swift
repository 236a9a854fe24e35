import Foundation
import SeededRandom
import TestSupport
import Testing

/// Seeded histories of 3 to 5 devices with edits, deletes, renames, offline periods, server
/// restarts, purges and transport faults, run by the real engines against the real server (see
/// `Simulation`). A failure prints its seed and the shortest sub-history that still fails.
/// CI runs a fixed sample: 200 histories from seed 20261123. `VAULTSYNC_SIM_SEED` and
/// `VAULTSYNC_SIM_SEEDS` choose others (to explore, or to replay a failure).
/// `bench/simulate.sh` runs thousands with a release build.
@Suite struct SimulationTests {
    @Test func seededHistoriesLoseNothing() async throws {
        let seed = SplitMix.seed("VAULTSYNC_SIM_SEED", default: 20_261_123)
        let count = SplitMix.count("VAULTSYNC_SIM_SEEDS", default: 200)
        try await Simulation.withServer { server in
            let outcome = try await Simulation.runMany(seed: seed, count: count, on: server)
            if let failure = outcome.failure {
                Issue.record("""
                    VAULTSYNC_SIM_SEED=\(seed) VAULTSYNC_SIM_SEEDS=\(failure.index + 1): \(failure.reason)
                    shortest failing history (\(failure.shortestReason)):
                    \(failure.shortest)
                    """)
            }
            #expect(outcome.histories == count)
        }
    }
}
