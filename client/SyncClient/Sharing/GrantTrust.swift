import Foundation
public import SyncProtocol
import VaultCrypto

/// Whether a device takes a vault key given to its account (`docs/sharing.md`, "Keys and trust"):
/// one pure rule. The server hands out every public key, so it could substitute one; a device
/// takes a key only when signed by someone the vault's member list names as its owner or an
/// admin, with the very keys the list shows, and, when the device saw that person's safety number
/// before (``pinned``), with that number still.
enum GrantTrust {
    enum Refusal: Error, Equatable {
        /// The signer is not in the vault, or their account is gone.
        case unknownSigner
        /// The signer is a writer or a reader: they give nobody a key.
        case notManager(email: String)
        /// The keys the grant names are not the signer's as the member list shows them.
        case keysDiffer(email: String)
        /// The signer's safety number is not the one this device saw before.
        case numberChanged(email: String)
    }

    static func check(signer: UUID?, signerKeys: SharingPublicKeys, members: [VaultMember], pinned: [UUID: String]) -> Refusal? {
        guard let signer, let member = members.first(where: { $0.userID == signer }) else { return .unknownSigner }
        guard member.role == .owner || member.role == .admin else { return .notManager(email: member.email) }
        guard member.agreementKey == signerKeys.agreement, member.signingKey == signerKeys.signing else { return .keysDiffer(email: member.email) }
        if let seen = pinned[signer], seen != signerKeys.safetyNumber { return .numberChanged(email: member.email) }
        return nil
    }
}

extension GrantTrust.Refusal: CustomStringConvertible {
    var description: String {
        switch self {
        case .unknownSigner:
            "a key given to this account was signed by someone who is not in the vault; it was not taken"
        case .notManager(let email):
            "a key given to this account was signed by \(email), who is not the vault's owner or an admin; it was not taken"
        case .keysDiffer(let email):
            "a key given to this account was signed with keys that are not \(email)'s as the server lists them; it was not taken (compare safety numbers with 'vaultsync members')"
        case .numberChanged(let email):
            "\(email)'s safety number changed since this device last saw it; no key signed by them is taken until you compare the number with them ('vaultsync members') and confirm it ('vaultsync members confirm \(email)')"
        }
    }
}

extension VaultMember {
    /// The member's public sharing keys, when they made them.
    var sharingKeys: SharingPublicKeys? {
        guard let agreementKey, let signingKey else { return nil }
        return try? SharingPublicKeys(agreement: agreementKey, signing: signingKey)
    }

    /// Their safety number (`docs/sharing.md`), when they made sharing keys.
    public var safetyNumber: String? { sharingKeys?.safetyNumber }
}
