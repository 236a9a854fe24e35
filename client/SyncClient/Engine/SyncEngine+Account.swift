import Foundation
import SyncProtocol

extension SyncEngine {
    /// Ends this device's session: the server revokes its refresh tokens and the local copy is removed.
    /// The vault's files and sync state stay; linking again resumes syncing.
    public func logout() async throws {
        let store = CredentialStore(stateFolder: stateFolder)
        if let credentials = try store.load() {
            try? await api.logout(refreshToken: credentials.refreshToken)
        }
        try store.remove()
    }
}

extension SyncReport: Encodable {
    enum CodingKeys: String, CodingKey {
        case status, pushed, pulled, merged, conflicts, notices, failures
        case deletedLocally = "deleted_locally"
        case deletedRemotely = "deleted_remotely"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(status.rawValue, forKey: .status)
        try c.encode(pushed, forKey: .pushed)
        try c.encode(pulled, forKey: .pulled)
        try c.encode(merged, forKey: .merged)
        try c.encode(deletedLocally, forKey: .deletedLocally)
        try c.encode(deletedRemotely, forKey: .deletedRemotely)
        try c.encode(conflicts, forKey: .conflicts)
        try c.encode(notices, forKey: .notices)
        try c.encode(failures, forKey: .failures)
    }
}
