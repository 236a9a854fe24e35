import Crypto
import Foundation

/// Sign-in tickets: what a device that signed in to an account before shows when it signs in
/// again, so that failures others cause (from its address, or at its account from anywhere) do
/// not make it wait (OWASP's "device cookies"). A ticket is a random id and an HMAC over the id
/// and the account's email under a key derived from the server secret: it is checked without
/// looking anything up, and it is good only for the email it was issued for. It signs nobody in:
/// the password is still checked, and a ticket's own failures make it wait.
struct SignInTickets: Sendable {
    private let key: SymmetricKey

    init(secret: SymmetricKey) {
        self.key = HKDF<SHA256>.deriveKey(inputKeyMaterial: secret, info: Data("vaultsync-sign-in-ticket".utf8), outputByteCount: 32)
    }

    /// A new ticket for `account` (an email as ``SignInAdmission/accountName(_:)`` normalises it).
    func issue(account: String) -> String {
        let id = Hex.encode(SymmetricKey(size: .bits128).withUnsafeBytes { Array($0) })
        return "\(id).\(mac(id: id, account: account))"
    }

    /// The ticket's id when `ticket` is one this server issued for `account`; nil otherwise.
    func id(of ticket: String?, account: String) -> String? {
        guard let ticket, ticket.utf8.count == 32 + 1 + 64 else { return nil }
        let parts = ticket.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        let id = String(parts[0])
        let expected = mac(id: id, account: account)
        // Compared in constant time: the mac must not be guessable byte by byte.
        guard zip(expected.utf8, parts[1].utf8).reduce(UInt8(0), { $0 | ($1.0 ^ $1.1) }) == 0, expected.utf8.count == parts[1].utf8.count else {
            return nil
        }
        return id
    }

    private func mac(id: String, account: String) -> String {
        Hex.encode(HMAC<SHA256>.authenticationCode(for: Array("\(id)\n\(account)".utf8), using: key))
    }
}
