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
