import Foundation
@testable import SyncServer
import SyncProtocol
import Testing

/// Whether a `PUT /vault/key` may create or replace the envelope, one row per rule.
@Suite struct KeyAdmissionTests {
    enum Expected: Equatable {
        case create
        case replace(revision: Int)
        case refused(ErrorCode)
    }

    struct Row: CustomTestStringConvertible, Sendable {
        let name: String
        var current: KeyAdmission.Current? = nil
        var holdsAnything = false
        var shared = false
        var expectedRevision: Int? = nil
        var proof: Data? = Row.proof
        var keyID = "0123456789abcdef"
        var logN = 15
        var role: VaultRole = .owner
        let expected: Expected
        var testDescription: String { name }

        static let proof = Data(repeating: 7, count: 32)
        static let recorded = KeyAdmission.Current(keyID: "0123456789abcdef", revision: 3, proofHash: KeyAdmission.hash(proof))
    }

    static let rows: [Row] = [
        Row(name: "an empty plain vault becomes encrypted", expected: .create),
        Row(name: "a vault that holds anything stays plain", holdsAnything: true, expected: .refused(.vaultNotEmpty)),
        Row(name: "a shared vault stays plain (encrypted vaults are not shared yet)", shared: true, expected: .refused(.invalidRequest)),
        Row(name: "an encrypted vault's envelope is replaced whatever its members", current: Row.recorded, shared: true, expectedRevision: 3, expected: .replace(revision: 4)),
        Row(name: "creating needs the proof too (it is recorded)", proof: nil, expected: .refused(.invalidRequest)),
        Row(name: "a proof is 32 bytes", proof: Data(count: 31), expected: .refused(.invalidRequest)),
        Row(name: "a second creation is a conflict", current: Row.recorded, expected: .refused(.keyConflict)),
        Row(name: "nothing to replace", expectedRevision: 1, expected: .refused(.keyConflict)),
        Row(name: "the key's holder replaces the current revision", current: Row.recorded, expectedRevision: 3, expected: .replace(revision: 4)),
        Row(name: "another proof is refused", current: Row.recorded, expectedRevision: 3, proof: Data(count: 32), expected: .refused(.keyProofInvalid)),
        Row(name: "another proof is refused before the revision is looked at", current: Row.recorded, expectedRevision: 1, proof: Data(count: 32), expected: .refused(.keyProofInvalid)),
        Row(name: "a stale revision is a conflict", current: Row.recorded, expectedRevision: 2, expected: .refused(.keyConflict)),
        Row(name: "another key is never put in", current: Row.recorded, expectedRevision: 3, keyID: "fedcba9876543210", expected: .refused(.keyConflict)),
        Row(
            name: "an envelope stored before proofs takes the first proof", current: .init(keyID: "0123456789abcdef", revision: 3, proofHash: nil),
            expectedRevision: 3, proof: Data(count: 32), expected: .replace(revision: 4)),
        Row(name: "a passphrase cost under the minimum is refused", logN: 14, expected: .refused(.invalidRequest)),
        Row(name: "a member, even an admin, does not set a shared vault's key", role: .admin, expected: .refused(.ownerOnly)),
        Row(name: "nor replace it", current: Row.recorded, expectedRevision: 3, role: .writer, expected: .refused(.ownerOnly)),
        Row(name: "nor does a reader", role: .reader, expected: .refused(.ownerOnly)),
    ]

    @Test(arguments: rows)
    func row(_ row: Row) {
        let envelope = KeyEnvelope(
            keyID: row.keyID, scrypt: ScryptParameters(salt: Data(repeating: 1, count: 16), logN: row.logN, r: 8, p: 1),
            passphraseWrapped: Data(repeating: 2, count: 60), recoveryWrapped: Data(repeating: 3, count: 60))
        let request = PutKeyRequest(envelope: envelope, expectedRevision: row.expectedRevision, proof: row.proof)
        let outcome: Expected
        do {
            switch try KeyAdmission.decide(request, current: row.current, holdsAnything: row.holdsAnything, shared: row.shared, minimumLogN: 15, vaultName: "notes", role: row.role) {
            case .create(let hash):
                #expect(hash == KeyAdmission.hash(row.proof ?? Data()))
                outcome = .create
            case .replace(let revision, let hash):
                #expect(hash == KeyAdmission.hash(row.proof ?? Data()))
                outcome = .replace(revision: revision)
            }
        } catch {
            outcome = .refused(error.wire.body.code)
        }
        #expect(outcome == row.expected)
    }
}
