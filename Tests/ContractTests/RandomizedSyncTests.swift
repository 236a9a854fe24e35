import Foundation
import SyncClient
import SyncProtocol
import TestSupport
import SeededRandom
import Testing

/// Three devices, a few hundred random creates, edits, deletes and renames with syncs in random
/// order, then final rounds (the simulated user settles conflicts by keeping both versions' lines).
/// Afterwards every device holds the same files, and every line ever written is in the final files
/// or in a conflict copy, unless a device deleted the file it was in. Replay with VAULTSYNC_SEED.
@Suite struct RandomizedSyncTests {
    @Test func threeDevicesConvergeAndLoseNothing() async throws {
        let seed = ProcessInfo.processInfo.environment["VAULTSYNC_SEED"].flatMap(UInt64.init) ?? UInt64(Date().timeIntervalSince1970 * 1000)
        var rng = SplitMix(seed: seed)
        try await TestServer.with { server in
            let user = try await server.newUser()
            var vaults: [TestVault] = []
            for name in ["laptop", "phone", "tablet"] { vaults.append(try await TestVault.link(user, deviceName: name)) }
            defer { vaults.forEach { $0.remove() } }
            let names = (0..<8).map { "notes/n\($0).md" }
            var written: [(line: String, path: String)] = []  // every line ever written, and where
            var deletedAfter: [String: Int] = [:]  // path → step of its latest deletion
            var token = 0
            for step in 0..<300 {
                let vault = vaults[Int.random(in: 0..<vaults.count, using: &rng)]
                let path = names[Int.random(in: 0..<names.count, using: &rng)]
                let exists = vault.read(path) != nil
                switch Int.random(in: 0..<10, using: &rng) {
                case 0..<5:
                    token += 1
                    let line = "line-\(token)"
                    let old = vault.read(path) ?? "---\ntitle: \(path)\n---"
                    var lines = old.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                    lines.insert(line, at: Int.random(in: min(3, lines.count)...lines.count, using: &rng))
                    try vault.write(path, lines.joined(separator: "\n"))
                    written.append((line, path))
                case 5 where exists:
                    try vault.delete(path)
                    deletedAfter[path] = step
                case 6 where exists:
                    let target = names[Int.random(in: 0..<names.count, using: &rng)]
                    if vault.read(target) == nil {
                        try vault.write(target, vault.read(path)!)
                        try vault.delete(path)
                        deletedAfter[path] = step
                        for entry in written where entry.path == path { written.append((entry.line, target)) }
                    }
                default:
                    try await vault.sync()
                }
            }
            // Final rounds: sync everything, settle conflicts by combining, sync again.
            for _ in 0..<3 {
                for vault in vaults { try await vault.sync() }
                for vault in vaults {
                    for conflict in try await vault.engine.state.conflicts() {
                        let local = vault.read(conflict.path.rawValue) ?? ""
                        let copy = conflict.conflictCopy.flatMap { vault.read($0.rawValue) } ?? ""
                        var lines = local.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                        for line in copy.split(separator: "\n").map(String.init) where !lines.contains(line) { lines.append(line) }
                        do {
                            try await vault.engine.resolve(conflict.path, .merged(Data(lines.joined(separator: "\n").utf8)))
                        } catch SyncEngineError.serverMovedOn {
                            continue  // settled next round, after another sync
                        }
                    }
                }
            }
            for vault in vaults { try await vault.sync() }
            let reference = try vaults[0].files()
            for vault in vaults.dropFirst() {
                #expect(try vault.files() == reference, "seed \(seed): devices differ")
            }
            for vault in vaults {
                #expect(try await vault.engine.state.conflicts().isEmpty, "seed \(seed): unresolved conflicts")
            }
            // Nothing silently lost.
            let everything = try vaults.flatMap { try Array($0.files().values) + Array($0.conflictCopies().values) }.joined(separator: "\n")
            let present = Set(everything.split(separator: "\n").map(String.init))
            for entry in written where !present.contains(entry.line) {
                #expect(deletedAfter[entry.path] != nil, "seed \(seed): \(entry.line) (in \(entry.path)) was lost")
            }
        }
    }
}
