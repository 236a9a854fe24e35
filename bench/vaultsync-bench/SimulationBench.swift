import Foundation
import SeededRandom
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The deterministic simulation at scale (issue 14): `histories` seeded histories, each with its
/// own account on one server, one after another. Prints progress, then the count, the time and
/// the first failure with its shortest failing history; exits 1 on a failure.
struct SimulationBench {
    let histories: Int
    let seed: UInt64
    /// Go on past failures, listing them (not shrunk).
    let keepGoing: Bool
    /// The index of the first history (to resume or split a run).
    let start: Int
    /// Whose vault: one person's, one three people share, or an encrypted one.
    var kind: SimScenario.Kind = .plain

    func run() async throws {
        let started = Date()
        say("simulation: \(histories) \(kind == .plain ? "" : "\(kind)-vault ")histories from seed \(seed), starting at history \(start + 1)")
        var failed = false
        try await Simulation.withServer { server in
            if histories == 1 {
                // One history of the run, with every sync's report; a failure is shrunk.
                let scenario = SimScenario.generate(seed: SplitMix.derive(seed, start), kind: kind)
                guard let failure = try await Simulation.run(scenario, on: server, verbose: true) else {
                    return say("history \(start + 1) held every invariant")
                }
                failed = true
                let (shortest, reason) = try await Simulation.shrink(scenario, failure, on: server)
                return say("history \(start + 1) FAILED: \(failure)\nshortest failing history (\(reason)):\n\(shortest)")
            }
            let outcome = try await Simulation.runMany(
                seed: seed, count: histories, from: start, on: server, kind: kind, keepGoing: keepGoing,
                progress: { done, failed in
                    if done % 250 == 0 { say("  \(done) histories, \(failed) failed, \(Int(Date().timeIntervalSince(started))) s") }
                },
                failed: { index, reason in say("FAILED: history \(index + 1) (VAULTSYNC_SIM_SEED=\(seed) VAULTSYNC_SIM_SEEDS=\(index + 1)): \(reason)") })
            let seconds = Date().timeIntervalSince(started)
            if let failure = outcome.failure {
                failed = true
                say("FAILED at history \(failure.index + 1) (VAULTSYNC_SIM_SEED=\(seed) VAULTSYNC_SIM_SEEDS=\(failure.index + 1)): \(failure.reason)")
                say("shortest failing history (\(failure.shortestReason)):\n\(failure.shortest)")
            } else if !outcome.failures.isEmpty {
                failed = true
                say(String(format: "simulation: %d histories from seed %llu, %d failed, in %.0f s", outcome.histories, seed, outcome.failures.count, seconds))
            } else {
                say(String(format: "simulation: %d histories from seed %llu held every invariant in %.0f s (%.2f s each)", outcome.histories, seed, seconds, seconds / Double(outcome.histories)))
            }
        }
        if failed { exit(1) }
    }
}

/// Writes a line at once (not buffered), so that progress shows in a log file as it comes.
private func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
