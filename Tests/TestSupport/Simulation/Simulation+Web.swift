import Foundation
import SyncClient
import SyncProtocol
import VaultCrypto

/// The web app's steps: the owner in a browser, through the pages' forms (signed in, with the
/// session's form token), writing through the server's one write rule as the devices do.
extension Simulation {
    /// Restores, from a note's history page, the newest version before its current one that holds
    /// bytes. The edits of the version it replaces were seen by the user choosing it (they stay in
    /// history); the restored version's come back, and the note lives again if it was deleted.
    func webRestore(_ path: String) async throws -> String? {
        let session = try await readerSession()
        let history: HistoryResponse
        do {
            history = try await server.api.history(try VaultPath(path), session: session)
        } catch let error as SyncAPIError where error.code == .notFound {
            return nil  // never a file: no history page
        }
        let versions = history.versions.sorted { $0.version > $1.version }
        guard let current = versions.first, let chosen = versions.dropFirst().first(where: { $0.contentHash != nil && !$0.deleted }) else { return nil }
        let tokens = try await server.api.login(email: user.email, password: user.password)
        let vault = try await server.api.vaults(accessToken: tokens.accessToken).first { $0.name == "default" }!.vaultID
        let base = "/app/vaults/\(vault.uuidString.lowercased())/"
        let query = path.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? path
        let answer = try await WebClient.with(server.baseURL) { web -> WebClient.Page in
            _ = try await web.signIn(email: user.email, password: user.password)
            let page = try await web.get(base + "history?path=" + query)
            guard let token = page.formToken else { return page }
            return try await web.post(base + "restore", form: ["path": path, "version": String(chosen.version), "form_token": token])
        }
        guard answer.status == 303 else { return "the web app's restore of \(path) v\(chosen.version) answered \(answer.status): \(answer.body.prefix(300))" }
        guard let made = answer.location.flatMap(Self.restoredVersion) else {
            return "the web app's restore of \(path) v\(chosen.version) answered without the version it made: \(answer.location ?? "no location")"
        }
        if verbose { print("web app restored \(path) v\(chosen.version) as v\(made) (current was v\(current.version) on its page)") }
        // The redirect alone does not say the bytes came back: the version it names must hold the
        // chosen one's. Watchers sync meanwhile, so the current version may already be a later
        // one (a device's edit merged onto the restored note), and the version the restore
        // replaced may be one pushed after the history page was read: both are read from the
        // history as it is now.
        let after = try await server.api.history(try VaultPath(path), session: session).versions
        guard let restored = after.first(where: { $0.version == made }), restored.contentHash == chosen.contentHash, !restored.deleted, made > current.version else {
            return "the web app answered the restore of \(path) v\(chosen.version) as v\(made), but that version holds other bytes (history now: \(after.map { "v\($0.version)\($0.deleted ? " deleted" : "")" }.joined(separator: ", ")))"
        }
        if let replaced = after.filter({ $0.version < made }).max(by: { $0.version < $1.version }), let text = try await versionContent(replaced, session: session) {
            ledger.excused.formUnion(Tokens.find(in: text))
        }
        ledger.mustBeGone[path] = nil
        ledger.restored.insert(path)
        return nil
    }

    /// The version number in the restore's redirect (`…&restored=N`).
    static func restoredVersion(_ location: String) -> Int? {
        URLComponents(string: location)?.queryItems?.first { $0.name == "restored" }?.value.flatMap { Int($0) }
    }

    /// The bytes of one version in a history, nil for a deletion (opened with the vault's key in
    /// an encrypted vault).
    func versionContent(_ version: FileVersionInfo, session: VaultSession) async throws -> String? {
        guard !version.deleted, let url = version.downloadURL else { return nil }
        let bytes = try await server.api.downloadBlob(from: url, session: session)
        return String(decoding: try vaultKeys().map { try FileFormat.open(bytes, with: $0.keys) } ?? bytes, as: UTF8.self)
    }
}

extension Simulation {
    /// Sets the vault back as it was at the start of the step `stepsBack` steps ago, as
    /// `vaultsync restore --as-of` does: one change through the write gate. The edits of each
    /// version it replaces were the user's choice to undo (they stay in history); files it brings
    /// back live again, and the lines it brings back may meet a device's edit of them.
    func restoreAsOf(stepsBack: Int) async throws -> String? {
        let moment = moments[max(0, moments.count - 1 - stepsBack)]
        let session = try await readerSession()
        let answer: RestoreAsOfResponse
        do {
            answer = try await server.api.restoreAsOf(RestoreAsOfRequest(asOf: moment), session: session)
        } catch let error as SyncAPIError where error.code == .invalidRequest && server.clock.now.timeIntervalSince(moment) > Double(Self.retention.components.seconds) {
            return nil  // older than the tombstone retention (a purge moved the clock): refused, nothing changed
        }
        if verbose { print("restored as of \(WireDate.format(moment)): \(answer.changed.count) set back, \(answer.broughtBack.count) brought back, \(answer.deleted.count) deleted") }
        guard answer.notRestorable.isEmpty else { return "a restore as of a moment found versions not restorable, with no version retention: \(answer.notRestorable)" }
        let made = answer.changed.map { ($0.path, $0.version) } + answer.broughtBack.map { ($0.path, $0.version) } + answer.deleted.map { ($0.path, $0.version) }
        for (path, version) in made {
            let history = try await server.api.history(path, session: session).versions
            guard let restored = history.first(where: { $0.version == version }), restored.origin == "restore as of \(WireDate.format(moment))" else {
                return "the restore as of \(WireDate.format(moment)) answered \(path) v\(version), but history does not name it so"
            }
            if let replaced = history.first(where: { $0.version == version - 1 }), let text = try await versionContent(replaced, session: session) {
                ledger.excused.formUnion(Tokens.find(in: text))
            }
            ledger.restored.insert(path.rawValue)
        }
        for file in answer.broughtBack { ledger.mustBeGone[file.path.rawValue] = nil }
        for file in answer.deleted { ledger.everDeleted.insert(file.path.rawValue) }
        return nil
    }
}
