import Foundation
import SyncClient
import SyncProtocol

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
        let replaced = try await serverContent(path)
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
        if verbose { print("web app restored \(path) v\(chosen.version) over v\(current.version)") }
        // The redirect alone does not say the bytes came back: the server's current ones must be the chosen version's.
        guard let now = try await serverContent(path), ContentHasher.hash(Data(now.utf8)) == chosen.contentHash else {
            return "the web app answered the restore of \(path) v\(chosen.version), but the server's current version holds other bytes"
        }
        if let replaced { ledger.excused.formUnion(Tokens.find(in: replaced)) }
        ledger.mustBeGone[path] = nil
        ledger.restored.insert(path)
        return nil
    }
}
