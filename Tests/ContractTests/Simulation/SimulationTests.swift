import Foundation
import SeededRandom
import TestSupport
import Testing

/// Seeded histories of 3 to 5 devices with edits, deletes, renames, offline periods, restarts of
/// one of two server instances, purges, transport faults, crashes and power cuts at any disk step,
/// a WebDAV client and restores in the web app, run by the real engines against the real servers
/// (see `Simulation`). A failure prints its seed and the shortest sub-history that still fails.
/// `bench/simulate.sh` runs thousands with a release build.
@Suite struct SimulationTests {
    /// CI runs a fixed sample: 100 histories from seed 20261123 (200 before each history crashed
    /// at disk steps and ran two server instances, 150 before the watchers were the real one: the
    /// suite kept its time). `VAULTSYNC_SIM_SEED` and `VAULTSYNC_SIM_SEEDS` choose others (to
    /// explore, or to replay a failure).
    @Test func seededHistoriesLoseNothing() async throws {
        try await runHistories(seedVariable: "VAULTSYNC_SIM_SEED", seed: 20_261_123, countVariable: "VAULTSYNC_SIM_SEEDS", count: 100, kind: .plain)
    }

    /// The same histories in a vault three people share: the owner's devices, a writer's (another
    /// account) and a reader's, whose own notes must never reach the server or another device.
    /// CI runs 20 from seed 20261126; `VAULTSYNC_SHARED_SIM_SEED` and `VAULTSYNC_SHARED_SIM_SEEDS`
    /// choose others.
    @Test func sharedVaultHistoriesLoseNothingAndNothingIsWrittenThroughAReader() async throws {
        try await runHistories(seedVariable: "VAULTSYNC_SHARED_SIM_SEED", seed: 20_261_126, countVariable: "VAULTSYNC_SHARED_SIM_SEEDS", count: 20, kind: .shared)
    }

    /// The same histories in an end-to-end encrypted vault: the merges, renames, restores, crashes
    /// and rekeys, with the server holding only sealed names and bytes. CI runs 4 from seed 20261127
    /// (more slowed the suite's timed tests on 2 cores; the defect history 7 found is a regression
    /// case); `VAULTSYNC_ENCRYPTED_SIM_SEED` and `VAULTSYNC_ENCRYPTED_SIM_SEEDS` choose others.
    @Test func encryptedVaultHistoriesLoseNothing() async throws {
        try await runHistories(seedVariable: "VAULTSYNC_ENCRYPTED_SIM_SEED", seed: 20_261_127, countVariable: "VAULTSYNC_ENCRYPTED_SIM_SEEDS", count: 4, kind: .encrypted)
    }

    /// The shared histories in an end-to-end encrypted vault: each person is given the vault's key
    /// under their own sharing keys, and only the owner's devices renew it (a writer's or reader's
    /// rekey is refused). CI runs 3 from seed 20261128; `VAULTSYNC_SHARED_ENCRYPTED_SIM_SEED` and
    /// `VAULTSYNC_SHARED_ENCRYPTED_SIM_SEEDS` choose others.
    @Test func sharedEncryptedVaultHistoriesLoseNothing() async throws {
        try await runHistories(
            seedVariable: "VAULTSYNC_SHARED_ENCRYPTED_SIM_SEED", seed: 20_261_128, countVariable: "VAULTSYNC_SHARED_ENCRYPTED_SIM_SEEDS", count: 3, kind: .sharedEncrypted)
    }

    private func runHistories(seedVariable: String, seed defaultSeed: UInt64, countVariable: String, count defaultCount: Int, kind: SimScenario.Kind) async throws {
        let seed = SplitMix.seed(seedVariable, default: defaultSeed)
        let count = SplitMix.count(countVariable, default: defaultCount)
        try await Simulation.withServer { server in
            let outcome = try await Simulation.runMany(seed: seed, count: count, on: server, kind: kind)
            if let failure = outcome.failure {
                Issue.record("""
                    \(seedVariable)=\(seed) \(countVariable)=\(failure.index + 1): \(failure.reason)
                    shortest failing history (\(failure.shortestReason)):
                    \(failure.shortest)
                    """)
            }
            #expect(outcome.histories == count)
        }
    }
}
