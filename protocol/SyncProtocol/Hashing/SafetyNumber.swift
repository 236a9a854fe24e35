import Crypto
public import Foundation

/// The safety number of an account's public sharing keys (`docs/encryption.md`): what two people
/// compare out of band (in person, on a call). 30 digits in six groups of five, each group five
/// bytes of SHA-256(`"vaultsync v1 safety number"` ‖ agreement key ‖ signing key) as a big-endian
/// number modulo 100,000. One rule for the client (`SharingPublicKeys`) and the web app.
public enum SafetyNumber {
    public static func of(agreementKey: Data, signingKey: Data) -> String {
        let digest = Array(SHA256.hash(data: Data("vaultsync v1 safety number".utf8) + agreementKey + signingKey))
        return (0..<6).map { group in
            let value = digest[group * 5..<group * 5 + 5].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let text = String(value % 100_000)
            return String(repeating: "0", count: 5 - text.count) + text
        }.joined(separator: " ")
    }
}
