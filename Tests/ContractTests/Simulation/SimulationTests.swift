import Foundation
import SeededRandom
import TestSupport
import Testing

/// Seeded histories of 3 to 5 devices with edits, deletes, renames, offline periods, server
/// restarts, purges and transport faults, run by the real engines against the real server (see
/// `Simulation`). A failure prints its seed and the shortest sub-history that still fails.
/// `VAULTSYNC_SIM_SEED` replays from a seed; `VAULTSYNC_SIM_SEEDS` sets how many run (CI: 200).
/// `bench/simulate.sh` runs thousands with a release build.
@Suite struct SimulationTests {
    @Test func seededHistoriesLoseNothing() async throws {
        let seed = SplitMix.seed("VAULTSYNC_SIM_SEED")
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
