import Foundation
import SyncClient
import SyncProtocol
import TestSupport
import Testing

/// Until the client syncs encrypted vaults (issue 11), it refuses one instead of filling the folder
/// with ciphertext or pushing plaintext into it: one line, exit 1, nothing written on either side.
@Suite struct EncryptedVaultCLITests: CLISuite {
    @Test func anEncryptedVaultIsRefusedWithoutWritingAnything() async throws {
        let laptop = newFolder(), phone = newFolder()
        defer { for folder in [laptop, phone] { try? FileManager.default.removeItem(at: folder) } }
        let email = "sealed-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        try await TestServer.with { server in
            let link = ["--server", server.baseURL.absoluteString, "--email", email]
            #expect(try await vaultsync(["init", laptop.path, "--create-account"] + link).exitCode == 0)
            // Another device makes the (still empty) vault an encrypted one.
            let tokens = try await server.api.login(email: email, password: Self.password)
            let other = try await server.api.registerDevice(RegisterDeviceRequest(deviceName: "encrypting device", platform: "linux"), accessToken: tokens.accessToken)
            let session = VaultSession(accessToken: tokens.accessToken, deviceID: other.deviceID)
            let envelope = KeyEnvelope(
                keyID: "0123456789abcdef", scrypt: ScryptParameters(salt: Data(repeating: 1, count: 16), logN: 17, r: 8, p: 1),
                passphraseWrapped: Data(repeating: 2, count: 60), recoveryWrapped: Data(repeating: 3, count: 60))
            _ = try await server.api.putKey(PutKeyRequest(envelope: envelope, expectedRevision: nil), session: session)
            let sealedName = String(repeating: "A", count: 43)
            let bytes = Data("ciphertext".utf8)
            _ = try await server.api.push(
                PushRequest(
                    files: [PushFile(path: try VaultPath(sealedName), contentHash: ContentHasher.hash(bytes), sizeBytes: Int64(bytes.count), baseVersion: nil, content: bytes, pathKey: String(repeating: "a", count: 64))],
                    commitInline: true),
                session: session)

            try Data("# plain note\n".utf8).write(to: laptop.appendingPathComponent("note.md"))
            let sync = try await vaultsync(["sync", laptop.path])
            #expect(sync.exitCode == 1 && sync.stderr.contains("linked to an encrypted vault") && sync.stderr.contains("nothing was synced"), "\(sync)")
            let json = try await vaultsync(["sync", laptop.path, "--json"])
            let error = try json.json()["error"] as? String
            #expect(json.exitCode == 1 && error?.contains("encrypted") == true, "\(json)")
            #expect(!FileManager.default.fileExists(atPath: laptop.appendingPathComponent(sealedName).path))

            let joined = try await vaultsync(["init", phone.path] + link)
            #expect(joined.exitCode == 1 && joined.stderr.contains("linked to an encrypted vault"), "\(joined)")
            let listed = try await vaultsync(["vaults", "--vault", phone.path])
            #expect(listed.exitCode == 0 && listed.stdout.contains("default  1 files") && listed.stdout.contains("encrypted  (this folder)"), "\(listed)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: phone.path).filter { $0 != ".vaultsync" }.isEmpty)
            // The server holds only the other device's file: no plaintext went in.
            #expect(try await server.api.state(session).files.map(\.path.rawValue) == [sealedName])
        }
    }
}
