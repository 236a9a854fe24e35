import Foundation
import Synchronization
import SyncClient
import SyncCore
import SyncProtocol
import SyncServer
import VaultCrypto

/// The end of a history: faults stop, devices settle, and the invariants are checked.
extension Simulation {
    func settleAndCheck() async throws -> String? {
        for device in devices.indices where devices[device].transport.isOffline {
            devices[device].transport.setOffline(false)
            onlineSince[device] = clock.now
        }
        // The watchers alone, for as long as their schedule may take: each carries every change
        // made on its device, also those it did not hear of (the safety net's whole scan).
        let settings = WatchSchedule.Settings()
        let quiet = settings.safetyInterval + settings.maxDelay * 2 + settings.debounce + Self.watchSettings.reconnectMax
        if let failure = try await passTime(until: clock.now + quiet) { return "the watchers' quiet period: \(failure)" }
        if let failure = unsyncedTooLong() { return "the watchers' quiet period: \(failure)" }
        for device in Array(watchers.keys) { await stopWatcher(device) }
        for device in devices.indices {
            devices[device].transport.arm(nil)
            // Files parked by the faults' per-file failures: the user retries them.
            try await devices[device].engine.retry()
        }
        // Rounds until one moves nothing: every device syncs, then settles what it found in conflict.
        for round in 0..<8 {
            var moved = false
            for device in devices.indices {
                var report = try await quietSync(device)
                if report.status == .unauthenticated {
                    // The server refuses a session only when the answer to a refresh was lost
                    // longer ago than its grace; the user then signs in again.
                    guard let lost = refreshAnswerLost[device], server.clock.now.timeIntervalSince(lost) > Double(server.configuration.refreshRetryGrace.components.seconds) else {
                        return "d\(device) was signed out without a lost refresh answer older than the grace"
                    }
                    try await signIn(device)
                    refreshAnswerLost[device] = nil
                    report = try await quietSync(device)
                }
                if verbose { print("d\(device) quiet sync: \(report)") }
                noteAway(device, report)
                if !scenario.collisions, !awayAcrossPurge.contains(device), !unexpected(report.conflicts).isEmpty {
                    ledger.unexpectedConflicts.append("d\(device) (final rounds): \(unexpected(report.conflicts))")
                }
                if report.changedAnything || !report.conflicts.isEmpty || !report.failures.isEmpty {
                    moved = true
                    try await resolveConflicts(device)
                }
            }
            if !moved { break }
            if round == 7 { return "still moving after 8 quiet rounds" }
        }
        return try await check()
    }

    /// A sync of the final rounds; one that stops for the sharing keys goes again once the user
    /// opened them.
    func quietSync(_ device: Int) async throws -> SyncReport {
        do {
            return try await devices[device].engine.sync()
        } catch {
            guard await unlockedSharingKeys(device, after: error) else { throw error }
            return try await devices[device].engine.sync()
        }
    }

    func check() async throws -> String? {
        let reference = try files(0)
        // A reader's own notes stay on its device, unsent; everything else converges.
        let readersOwn = { (path: String) in self.scenario.readers.contains { path.hasPrefix("d\($0)/") } }
        if let leaked = reference.keys.sorted().first(where: readersOwn) { return "a reader's note reached the server: \(leaked)" }
        // A device leaving Journal/ out holds the rest as the others do, and in Journal/ only what it wrote itself.
        let held = { (device: Int, path: String) in !self.scenario.selective.contains(device) || Self.selection.holds(path) }
        for device in devices.indices.dropFirst() {
            let other = try files(device).filter { !readersOwn($0.key) && held(device, $0.key) }
            let expected = reference.filter { held(device, $0.key) }
            if other != expected {
                let differing = Set(expected.keys).union(other.keys).filter { expected[$0] != other[$0] }.sorted()
                return "d0 and d\(device) differ: \(differing)"
            }
            let outside = try files(device).filter { !held(device, $0.key) }
            if let taken = outside.values.flatMap(Tokens.find(in:)).first(where: { !ledger.selectiveTokens.contains($0) }) {
                return "d\(device) leaves Journal/ out yet holds another device's edit there: \(taken)"
            }
        }
        // Every note and attachment has content: an empty one is a write a power cut cut short.
        for device in devices.indices {
            if let empty = try files(device).filter({ $0.value.isEmpty }).keys.sorted().first { return "d\(device) presents a half-written file: \(empty)" }
        }
        for device in devices.indices {
            let open = try await devices[device].engine.state.conflicts()
            if !open.isEmpty { return "d\(device) keeps open conflicts: \(open.map(\.path))" }
            let failures = try await devices[device].engine.state.failures()
            if !failures.isEmpty { return "d\(device) keeps failing: \(failures.map { "\($0.path) \($0.lastError)" })" }
        }
        if let first = ledger.unexpectedConflicts.first { return "a conflict where the merge rules resolve everything: \(first)" }
        var present: Set<String> = []
        for device in devices.indices {
            for text in try files(device).values { present.formUnion(Tokens.find(in: text)) }
            for text in conflictCopies(device).values { present.formUnion(Tokens.find(in: text)) }
        }
        let lost = ledger.written.keys.filter { !present.contains($0) && !ledger.excused.contains($0) }.sorted()
        if !lost.isEmpty { return "edits lost: \(lost.map { "\($0) (in \(ledger.written[$0]!))" })" }
        if let missing = try await notInOpenRecords(Set(ledger.inRecords.keys)).first {
            return "a WebDAV write kept as a conflict record is in no open record: \(missing) (in \(ledger.inRecords[missing]!))"
        }
        for device in devices.indices where !scenario.readers.contains(device) {
            let texts = Array(try files(device).values) + Array(conflictCopies(device).values)
            let leaked = ledger.readerTokens.filter { token in texts.contains { $0.contains(token) } }
            if !leaked.isEmpty { return "a reader's edit reached d\(device): \(leaked.sorted())" }
        }
        for path in ledger.mustBeGone.keys.sorted() where reference[path] != nil { return "\(path) was deleted and came back" }
        let outside = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        let expected = (["outside.txt"] + devices.indices.map { "device\($0)" }).sorted()
        if outside != expected || (try? String(contentsOf: folder.appendingPathComponent("outside.txt"), encoding: .utf8)) != "outside" {
            return "something outside the vaults changed: \(outside)"
        }
        if let leaked = try await checkSealed(reference.keys) { return leaked }
        return try await checkHistory()
    }

    /// In an encrypted vault, the server holds only sealed names, each of which the vault's key
    /// opens, and every file the devices hold is among them.
    func checkSealed(_ plaintexts: Dictionary<String, String>.Keys) async throws -> String? {
        guard let names = try vaultKeys()?.names else { return nil }
        let session = try await readerSession()
        var opened: Set<String> = []
        var cursor: String?
        repeat {
            let page = try await server.api.state(session, cursor: cursor)
            for file in page.files {
                if plaintexts.contains(file.path.rawValue) { return "the server holds a plaintext name: \(file.path)" }
                guard let plain = try? names.decode(file.path) else { return "the server holds a name the vault's newest names key does not open: \(file.path)" }
                opened.insert(plain.rawValue)
            }
            cursor = page.cursor
            if page.hasMore != true { break }
        } while true
        if let missing = plaintexts.sorted().first(where: { !opened.contains($0) }) { return "the server holds no sealed name for \(missing)" }
        return nil
    }

    /// Every version the server confirmed is in the history of files never deleted (a deleted
    /// file's history goes with its tombstone, and so does a name a rekey retired).
    func checkHistory() async throws -> String? {
        let confirmed = confirmed.versions.withLock { $0 }
        let session = try await readerSession()
        // The transports saw the server's names: sealed ones in an encrypted vault.
        let names = try vaultKeys()?.names
        for (path, versions) in confirmed.sorted(by: { $0.key < $1.key }) {
            if let names, (try? names.decode(path)) == nil { continue }  // renamed by a rekey
            if ledger.everDeleted.contains(try names?.decode(path).rawValue ?? path.rawValue) { continue }
            let history = try await server.api.history(path, session: session)
            let kept = Dictionary(history.versions.compactMap { entry in entry.contentHash.map { (entry.version, $0) } }, uniquingKeysWith: { a, _ in a })
            for (version, hash) in versions.sorted(by: { $0.key < $1.key }) where kept[version] != hash {
                return "\(path) v\(version) was confirmed but the history has \(kept[version]?.rawValue ?? "no such version")"
            }
        }
        return nil
    }

    /// Those of `tokens` in no open conflict record on the server (read as the vault's reader
    /// device reads them, opened with the vault's key in an encrypted vault).
    func notInOpenRecords(_ tokens: Set<String>) async throws -> [String] {
        guard !tokens.isEmpty else { return [] }
        let session = try await readerSession()
        let keys = try vaultKeys()
        var found: Set<String> = []
        for record in try await server.api.conflicts(session: session).conflicts {
            guard let url = record.downloadURL else { continue }
            let bytes = try await server.api.downloadBlob(from: url, session: session)
            found.formUnion(Tokens.find(in: String(decoding: try keys.map { try FileFormat.open(bytes, with: $0.keys) } ?? bytes, as: UTF8.self)))
        }
        return tokens.subtracting(found).sorted()
    }
}
