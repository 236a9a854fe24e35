import Foundation
import SyncClient
import SyncProtocol
import VaultCrypto

/// An encrypted vault's keys in the simulation: sharing it, the rekeys, the sharing keys a
/// device's user opens, and the keys the checks read the server with.
extension Simulation {
    /// Shares an encrypted vault as its people do (`docs/sharing.md`): the owner makes sharing
    /// keys on the first device, each other person makes theirs in a folder of their own vault
    /// (`vaultsync keys create`), and the owner invites them pinning their safety number, which
    /// gives them the vault's key under their sharing keys; they accept.
    func shareEncrypted() async throws {
        sharedEncrypted = true
        let owner = devices[0].engine
        _ = try await owner.createSharingKeys(passphrase: Self.passphrase, scrypt: TestVault.cheapScrypt)
        for (devices, role) in [(scenario.writers, VaultRole.writer), (scenario.readers, .reader)] where !devices.isEmpty {
            let person = people[devices.min()!]!
            let own = others.appendingPathComponent(role.rawValue)
            try FileManager.default.createDirectory(at: own, withIntermediateDirectories: true)
            let credential = SignInCredential.password(email: person.email, password: person.password)
            _ = try await SyncEngine.link(root: own, server: server.baseURL, credential: credential, deviceName: "own", transport: newTransport())
            let (_, number) = try await SyncEngine(root: own, transport: newTransport()).createSharingKeys(passphrase: Self.passphrase, scrypt: TestVault.cheapScrypt)
            let invitation = try await owner.invite(email: person.email, role: role, safetyNumber: number)
            _ = try await server.api.acceptInvitation(invitation.invitationID, accessToken: person.tokens.accessToken)
        }
    }

    /// After a sync that stopped for the account's sharing keys (another device rekeyed the vault,
    /// and its new generation is given to the account through them), the user opens them on this
    /// device, as the message says (`vaultsync keys unlock`). True when that was the reason.
    func unlockedSharingKeys(_ device: Int, after error: any Error) async -> Bool {
        guard case SyncEngineError.sharingKeys = error else { return false }
        _ = try? await devices[device].engine.unlockSharingKeys(.passphrase(Self.passphrase))
        return true
    }

    /// A rekey by `device`: it must go through unless the device cannot reach the server (offline,
    /// or signed out by a lost refresh answer), another device's rekey came first, or the device
    /// is another person's in a shared vault (only the owner renews its key).
    func rekey(_ device: Int, contents: Bool) async throws -> String? {
        devices[device].transport.arm(nil)
        devices[device].disk.arm(crashAt: nil)
        do {
            // As its user does first: the account's sharing keys made, or opened on this device.
            let engine = devices[device].engine
            switch try await engine.sharingKeysStatus() {
            case nil: _ = try await engine.createSharingKeys(passphrase: Self.passphrase, scrypt: TestVault.cheapScrypt)
            case .some((_, false)): _ = try await engine.unlockSharingKeys(.passphrase(Self.passphrase))
            case .some((_, true)): break
            }
            let outcome = try await engine.rekeyVault(contents: contents)
            if verbose { print("d\(device) rekey: \(outcome)") }
        } catch {
            if verbose { print("d\(device) rekey failed: \(error)") }
            // Refused for the keys' sake, with what to do (another device rekeyed since this one
            // last synced: "sync, then rekey again"): nothing was renamed.
            if case SyncEngineError.sharingKeys = error { return nil }
            // Only the owner (or an admin) renews a shared vault's key.
            if people[device] != nil, let refusal = error as? SyncAPIError, refusal.code == .adminOnly { return nil }
            guard devices[device].transport.isOffline || refreshAnswerLost[device] != nil else { return "a rekey failed without a fault: \(error)" }
            return nil
        }
        return nil
    }

    /// A purge removed the tombstones a rekey left at the old names, with their history: a device
    /// still under older names has lost the merge bases of its edits from before the rekey, and
    /// keeps both versions where they would have merged, as a device away across a purge does
    /// (``noteAway(_:_:)``; its cursor, reset by the switch of names, does not say so).
    func noteBehindARekeyAcrossAPurge() throws {
        guard scenario.encrypted else { return }
        let generations = try devices.map { try CredentialStore(stateFolder: $0.root.appendingPathComponent(VaultPath.stateFolderName)).load()?.namesGeneration ?? 1 }
        let newest = generations.max() ?? 1
        for (device, generation) in generations.enumerated() where generation < newest { awayAcrossPurge.insert(device) }
    }

    static let passphrase = "the simulation's passphrase"

    /// An encrypted vault's keys and the names the server knows its files by now: the most
    /// generations any device holds (a device may have made one, or taken it, that the others take
    /// at their next sync), and the newest names generation any device switched to (a rekey's
    /// device does at once; the others at their next sync). The checks read the server through
    /// them (its names and bytes are sealed). Nil for a plain vault.
    func vaultKeys() throws -> (keys: VaultKeyring, names: VaultCodec)? {
        guard scenario.encrypted else { return nil }
        var keys: VaultKeyring?
        var names = 1
        for device in devices {
            guard let stored = try CredentialStore(stateFolder: device.root.appendingPathComponent(VaultPath.stateFolderName)).load(),
                let held = try stored.vaultKeyring
            else { continue }
            if held.generations.count > keys?.generations.count ?? 0 { keys = held }
            names = max(names, stored.namesGeneration ?? 1)
        }
        guard let keys, let codec = VaultCodec(keys: keys, namesGeneration: names) else { throw SetupError.noVaultKey }
        return (keys, codec)
    }
}
