import Foundation
import Postgres
import SyncClient
import SyncProtocol
import SyncServer
import TestSupport
import Testing

/// `GET`/`PUT /vault/key`: the server keeps an encrypted vault's key envelope, which it cannot open.
/// Only an empty vault becomes encrypted, and of two devices replacing the envelope one wins.
@Suite struct VaultKeyTests {
    static func envelope(keyID: String = "0123456789abcdef", salt: UInt8 = 1) -> KeyEnvelope {
        KeyEnvelope(
            keyID: keyID, scrypt: ScryptParameters(salt: Data(repeating: salt, count: 16), logN: 17, r: 8, p: 1),
            passphraseWrapped: Data(repeating: 2, count: 60), recoveryWrapped: Data(repeating: 3, count: 60))
    }

    /// The proof of the key these envelopes stand for (any 32 bytes: the server only compares).
    static let proof = Data(repeating: 7, count: 32)

    static func code(_ body: () async throws -> Void) async -> ErrorCode? {
        do {
            try await body()
            return nil
        } catch let error as SyncAPIError {
            return error.code
        } catch {
            return ErrorCode(rawValue: "unexpected: \(error)")
        }
    }

    @Test func anEmptyVaultBecomesEncryptedAndItsEnvelopeIsReplacedOneDeviceAtATime() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let laptop = try await user.newDevice("laptop")
            let phone = try await user.newDevice("phone")
            let api = server.api
            #expect(await Self.code { _ = try await api.key(laptop.session) } == .notFound)

            let created = try await api.putKey(PutKeyRequest(envelope: Self.envelope(), expectedRevision: nil, proof: Self.proof), session: laptop.session)
            #expect(created.revision == 1 && created.updatedByDevice == "laptop" && created.passphraseWrapped == Self.envelope().passphraseWrapped)
            #expect(try await api.key(phone.session) == created)
            #expect(try await api.vaults(accessToken: laptop.session.accessToken).first?.encrypted == true)
            // Created once: a second creation is a conflict, not an overwrite.
            #expect(await Self.code { _ = try await api.putKey(PutKeyRequest(envelope: Self.envelope(salt: 9), expectedRevision: nil, proof: Self.proof), session: phone.session) } == .keyConflict)

            // A new passphrase: the phone replaces revision 1; the laptop, still at 1, is refused.
            let replaced = try await api.putKey(PutKeyRequest(envelope: Self.envelope(salt: 4), expectedRevision: 1, proof: Self.proof), session: phone.session)
            #expect(replaced.revision == 2 && replaced.scrypt.salt == Data(repeating: 4, count: 16) && replaced.updatedByDevice == "phone")
            #expect(await Self.code { _ = try await api.putKey(PutKeyRequest(envelope: Self.envelope(salt: 5), expectedRevision: 1, proof: Self.proof), session: laptop.session) } == .keyConflict)
            // Another key is never put in: the vault's files are encrypted with this one.
            #expect(await Self.code { _ = try await api.putKey(PutKeyRequest(envelope: Self.envelope(keyID: "fedcba9876543210"), expectedRevision: 2, proof: Self.proof), session: laptop.session) } == .keyConflict)
            #expect(try await api.key(laptop.session) == replaced)
        }
    }

    @Test func aVaultWithFilesStaysPlain() async throws {
        try await TestServer.with { server in
            let device = try await server.newUser().newDevice()
            try await device.write("a.md", "plain")
            #expect(await Self.code { _ = try await server.api.putKey(PutKeyRequest(envelope: Self.envelope(), expectedRevision: nil, proof: Self.proof), session: device.session) } == .vaultNotEmpty)
            // Deleted files count too: their tombstones still name plain paths.
            let other = try await server.api.createVault(named: "second", accessToken: device.session.accessToken)
            let second = device.inVault(other.vaultID.uuidString)
            try await second.write("b.md", "plain")
            let state = try await second.allChanges()
            _ = try await server.api.delete(DeleteRequest(files: [DeleteFile(path: try VaultPath("b.md"), baseVersion: state.files[0].version)]), session: second.session)
            #expect(await Self.code { _ = try await server.api.putKey(PutKeyRequest(envelope: Self.envelope(), expectedRevision: nil, proof: Self.proof), session: second.session) } == .vaultNotEmpty)
            #expect(await Self.code { _ = try await server.api.key(device.session) } == .notFound)
        }
    }

    @Test func malformedEnvelopesAreRefusedAndAnotherUsersVaultIsNotFound() async throws {
        try await TestServer.with { server in
            let device = try await server.newUser().newDevice()
            var shortWrap = Self.envelope()
            shortWrap.passphraseWrapped = Data(count: 59)
            let badID = Self.envelope(keyID: "0123456789ABCDEF")
            var cheap = Self.envelope()
            cheap.scrypt.logN = 4
            var otherKDF = Self.envelope()
            otherKDF.kdf = "pbkdf2"
            var future = Self.envelope()
            future.formatVersion = 2
            for envelope in [shortWrap, badID, cheap, otherKDF, future] {
                #expect(await Self.code { _ = try await server.api.putKey(PutKeyRequest(envelope: envelope, expectedRevision: nil, proof: Self.proof), session: device.session) } == .invalidRequest)
            }
            #expect(await Self.code { _ = try await server.api.key(device.session) } == .notFound)

            _ = try await server.api.putKey(PutKeyRequest(envelope: Self.envelope(), expectedRevision: nil, proof: Self.proof), session: device.session)
            let stranger = try await server.newUser().newDevice()
            let theirs = try await server.api.vaults(accessToken: device.session.accessToken)[0].vaultID.uuidString
            #expect(await Self.code { _ = try await server.api.key(stranger.inVault(theirs).session) } == .notFound)
            #expect(try await server.api.vaults(accessToken: stranger.session.accessToken).first?.encrypted == false)
        }
    }

    /// Only a holder of the key replaces the envelope: another session of the account (a stolen
    /// token, say) that writes broken wrapped keys without the key's proof is refused and changes
    /// nothing; every replaced envelope is kept and can be put back; an envelope stored before
    /// proofs records the first one it is replaced with.
    @Test func onlyAHolderOfTheKeyReplacesTheEnvelopeAndPastRevisionsAreKept() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let (owner, _) = try await user.signedInDevice("laptop")
            let (intruder, _) = try await user.signedInDevice("stolen session")
            let api = server.api
            let created = try await api.putKey(PutKeyRequest(envelope: Self.envelope(), expectedRevision: nil, proof: Self.proof), session: owner.session)

            var broken = Self.envelope()
            broken.passphraseWrapped = Data(count: 60)
            broken.recoveryWrapped = Data(count: 60)
            #expect(await Self.code { _ = try await api.putKey(PutKeyRequest(envelope: broken, expectedRevision: 1, proof: Data(count: 32)), session: intruder.session) } == .keyProofInvalid)
            #expect(await Self.code { _ = try await api.putKey(PutKeyRequest(envelope: broken, expectedRevision: 1, proof: nil), session: intruder.session) } == .invalidRequest)
            #expect(await Self.code { _ = try await api.putKey(PutKeyRequest(envelope: broken, expectedRevision: 1, proof: Data(count: 8)), session: intruder.session) } == .invalidRequest)
            #expect(try await api.key(owner.session) == created, "nothing was changed")
            #expect(try await api.keyRevisions(owner.session).revisions.isEmpty)

            let changed = try await api.putKey(PutKeyRequest(envelope: Self.envelope(salt: 4), expectedRevision: 1, proof: Self.proof), session: owner.session)
            let past = try await api.keyRevisions(intruder.session).revisions
            #expect(past.map(\.revision) == [1] && past.first?.passphraseWrapped == created.passphraseWrapped && past.first?.updatedByDevice == "laptop")
            // Undone: the first envelope is current again, as revision 3.
            var first = try #require(past.first)
            (first.revision, first.updatedAt, first.updatedByDevice) = (nil, nil, nil)
            let restored = try await api.putKey(PutKeyRequest(envelope: first, expectedRevision: changed.revision, proof: Self.proof), session: owner.session)
            #expect(restored.revision == 3 && restored.scrypt == created.scrypt)
            #expect(try await api.keyRevisions(owner.session).revisions.map(\.revision) == [2, 1])

            // Stored before proofs: the first replacement records its proof, which holds from then on.
            try PostgresConnection(connectionString: server.databaseURL).query("UPDATE vault_keys SET proof_hash = NULL")
            let other = Data(repeating: 9, count: 32)
            _ = try await api.putKey(PutKeyRequest(envelope: Self.envelope(salt: 5), expectedRevision: 3, proof: other), session: owner.session)
            #expect(await Self.code { _ = try await api.putKey(PutKeyRequest(envelope: broken, expectedRevision: 4, proof: Self.proof), session: intruder.session) } == .keyProofInvalid)
        }
    }

    /// A new envelope's passphrase must stay expensive to guess: scrypt under the server's
    /// minimum (log_n 15 by default, r 8) is refused.
    @Test func weakPassphraseParametersAreRefused() async throws {
        try await TestServer.with(configure: { $0.minimumScryptLogN = 15 }) { server in
            let device = try await server.newUser().newDevice()
            var weak = Self.envelope()
            weak.scrypt.logN = 14
            var thin = Self.envelope()
            thin.scrypt.r = 1
            for envelope in [weak, thin] {
                #expect(await Self.code { _ = try await server.api.putKey(PutKeyRequest(envelope: envelope, expectedRevision: nil, proof: Self.proof), session: device.session) } == .invalidRequest)
            }
            var enough = Self.envelope()
            enough.scrypt.logN = 15
            #expect(try await server.api.putKey(PutKeyRequest(envelope: enough, expectedRevision: nil, proof: Self.proof), session: device.session).revision == 1)
        }
    }

    /// In an encrypted vault the letter-case rule goes by the key each push names: two opaque paths
    /// with one key are `Notes.md` and `notes.md`. A push without one is refused (a client that does
    /// not encrypt must not write there), and a plain vault refuses one.
    @Test func anEncryptedVaultKeysTheLetterCaseRuleByThePushedPathKey() async throws {
        try await TestServer.with { server in
            let device = try await server.newUser().newDevice()
            let api = server.api
            let session = device.session
            _ = try await api.putKey(PutKeyRequest(envelope: Self.envelope(), expectedRevision: nil, proof: Self.proof), session: session)
            #expect(try await api.state(session).encrypted == true)
            let (k1, k2) = (String(repeating: "1", count: 64), String(repeating: "2", count: 64))
            func file(_ path: String, _ content: String, key: String?, inline: Bool = true, base: Int? = nil) throws -> PushFile {
                let bytes = Data(content.utf8)
                return PushFile(
                    path: try VaultPath(path), contentHash: ContentHasher.hash(bytes), sizeBytes: Int64(bytes.count), baseVersion: base,
                    content: inline ? bytes : nil, pathKey: key)
            }

            #expect(await Self.code { _ = try await api.push(PushRequest(files: [try file("Aaaa", "x", key: nil)]), session: session) } == .invalidRequest)
            #expect(await Self.code { _ = try await api.push(PushRequest(files: [try file("Aaaa", "x", key: "ABC")]), session: session) } == .invalidRequest)

            // Committed inline: the second path with the same key is refused, in one batch and after.
            let first = try await api.push(PushRequest(files: [try file("Aaaa", "a", key: k1), try file("Bbbb", "b", key: k1)], commitInline: true), session: session)
            #expect(first.committed?.confirmed.map(\.path.rawValue) == ["Aaaa"] && first.rejected.map(\.code) == [.pathCaseConflict])
            let again = try await api.push(PushRequest(files: [try file("Cccc", "c", key: k1)], commitInline: true), session: session)
            #expect(again.rejected.map(\.code) == [.pathCaseConflict])

            // Reserved by two pushes, uploaded, confirmed: the reservation's key decides at confirm.
            let d = try await api.push(PushRequest(files: [try file("Dddd", "d", key: k2, inline: false)]), session: session)
            let e = try await api.push(PushRequest(files: [try file("Eeee", "e", key: k2, inline: false)]), session: session)
            for (push, content) in [(d, "d"), (e, "e")] {
                for upload in push.uploads where upload.uploadRequired {
                    try await api.uploadBlob(Data(content.utf8), to: upload.uploadURL!, headers: upload.uploadHeaders ?? [:], session: session)
                }
            }
            let confirmed = try await api.confirm(ConfirmRequest(confirmed: (d.uploads + e.uploads).map { ConfirmItem(path: $0.path, version: $0.newVersion) }), session: session)
            #expect(confirmed.confirmed.map(\.path.rawValue) == ["Dddd"] && confirmed.failed.map(\.code) == [.pathCaseConflict])

            // A deleted path frees its key and keeps it: a new path may take it, and the deleted
            // one cannot come back beside it.
            let aVersion = try #require(first.committed?.confirmed.first?.version)
            _ = try await api.delete(DeleteRequest(files: [DeleteFile(path: try VaultPath("Aaaa"), baseVersion: aVersion)]), session: session)
            let taken = try await api.push(PushRequest(files: [try file("Ffff", "f", key: k1)], commitInline: true), session: session)
            #expect(taken.committed?.confirmed.map(\.path.rawValue) == ["Ffff"])
            #expect(await Self.code { _ = try await api.restore(RestoreRequest(path: try VaultPath("Aaaa"), version: aVersion), session: session) } == .pathCaseConflict)

            // A plain vault refuses a key: a path_key there is a client mistake.
            let plain = try await server.newUser().newDevice()
            #expect(await Self.code { _ = try await api.push(PushRequest(files: [try file("a.md", "x", key: k1)]), session: plain.session) } == .invalidRequest)
            #expect(try await api.state(plain.session).encrypted == false)
        }
    }
}
