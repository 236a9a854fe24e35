import SyncProtocol

/// What a token's folder lets an agent reach (`vaultsync tokens create --under`): paths under it,
/// and nothing else, which is answered as if it were not there. Pure.
struct AgentReach: Sendable, Equatable {
    /// The folder's path prefix (`Projects/`); nil: the whole vault.
    let under: String?

    /// A path the agent names, checked as a vault path and within the folder.
    /// - Throws: ``AgentFailure/badCall(_:)`` for a path the vault's rules refuse,
    ///   ``AgentFailure/notFound(_:)`` for one outside the folder.
    func path(_ text: String) throws(AgentFailure) -> VaultPath {
        let path: VaultPath
        do {
            path = try VaultPath(text)
        } catch {
            throw .badCall("'\(text.prefix(200))' is not a path of a vault: \(error)")
        }
        guard under.map({ path.rawValue.hasPrefix($0) }) ?? true else { throw .notFound("no file '\(path)'") }
        return path
    }

    /// The prefix a listing or search under `folder` reads: the folder (trailing `/` or not)
    /// within the token's, the token's own when `folder` holds it, nothing (nil) when `folder`
    /// is outside it.
    func folder(_ folder: String?) throws(AgentFailure) -> String? {
        var asked = folder ?? ""
        while asked.hasSuffix("/") { asked.removeLast() }
        let prefix: String
        if asked.isEmpty {
            prefix = ""
        } else {
            do {
                prefix = try VaultPath(asked).rawValue + "/"
            } catch {
                throw .badCall("'\(asked.prefix(200))' is not a folder of a vault: \(error)")
            }
        }
        guard let under else { return prefix }
        if prefix.hasPrefix(under) { return prefix }
        if under.hasPrefix(prefix) { return under }
        return nil
    }
}
