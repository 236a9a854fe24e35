public import Foundation
public import SyncCore
public import SyncProtocol

extension SyncEngine {
    /// The account's devices that are not revoked, oldest first (``DeviceInfo/current`` marks this one).
    public func devices() async throws -> [DeviceInfo] {
        try await session.run { [api] in try await api.devices(accessToken: $0.accessToken).devices }
    }

    /// Tells the server which folders this device holds, for device lists: by name in a plain
    /// vault, by count in an encrypted one (the server never learns a name there).
    public func reportFolders(_ selection: FolderSelection) async throws {
        let keyID = try await store.meta(.vaultKeyID)
        let plain = remote.cipher == nil && keyID == nil
        let words = plain ? selection.summary : selection.namelessSummary
        let device = await session.vaultSession.deviceID
        try await session.run { [api] in try await api.setFolders(words, deviceID: device, accessToken: $0.accessToken) }
    }

    /// Renames one of the account's devices (this one's name is also kept for a later sign-in).
    public func renameDevice(_ id: UUID, to name: String) async throws -> DeviceInfo {
        let device = try await session.run { [api] in try await api.renameDevice(id, to: name, accessToken: $0.accessToken) }
        if id == (await session.vaultSession.deviceID) {
            try await session.renamed(device.deviceName)
            try await store.setMeta(.deviceName, device.deviceName)
        }
        return device
    }

    /// An app password for a WebDAV client: a new device of the account named `name`, shown once.
    public func makeAppPassword(name: String) async throws -> AppPasswordCreated {
        try await makeAppPassword(AppPasswordRequest(name: name))
    }

    /// An app password reaching what `request` says (``AppPasswordRequest``).
    public func makeAppPassword(_ request: AppPasswordRequest) async throws -> AppPasswordCreated {
        try await session.run { [api] in try await api.makeAppPassword(request, accessToken: $0.accessToken) }
    }

    /// The account's live sessions (sign-ins), oldest first, each under its device or bound to none.
    public func sessions() async throws -> [SessionInfo] {
        try await session.run { [api] in try await api.sessions(accessToken: $0.accessToken).sessions }
    }

    /// Ends one of the account's sessions: its tokens are refused from its next request. Ending
    /// this folder's own session also removes its credentials, as ``logout()`` does.
    /// - Returns: whether it was this folder's session.
    @discardableResult
    public func endSession(_ id: UUID) async throws -> Bool {
        let own = try await sessions().first { $0.sessionID == id }?.current ?? false
        try await session.run { [api] in try await api.endSession(id, accessToken: $0.accessToken) }
        if own { try CredentialStore(stateFolder: stateFolder).remove() }
        return own
    }

    /// Revokes one of the account's devices: the server ends its sessions at once, so its next
    /// request is refused and its files stay as they are. Revoking this device also removes its
    /// credentials, as ``logout()`` does.
    /// - Returns: whether it was this device.
    @discardableResult
    public func revokeDevice(_ id: UUID) async throws -> Bool {
        try await session.run { [api] in try await api.revokeDevice(id, accessToken: $0.accessToken) }
        guard id == (await session.vaultSession.deviceID) else { return false }
        try CredentialStore(stateFolder: stateFolder).remove()
        return true
    }
}
