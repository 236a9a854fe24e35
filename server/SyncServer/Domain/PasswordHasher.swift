import Crypto
import CryptoExtras
import Foundation

/// Salted scrypt password hashes: `scrypt$N$r$p$salt$hash` (base64). Slow on purpose.
struct PasswordHasher: Sendable {
    let cost: Int

    func hash(_ password: String) throws -> String {
        var salt = [UInt8](repeating: 0, count: 16)
        for i in salt.indices { salt[i] = UInt8.random(in: .min ... .max) }
        let key = try derive(password, salt: salt, cost: cost)
        return "scrypt$\(cost)$8$1$\(Data(salt).base64EncodedString())$\(Data(key).base64EncodedString())"
    }

    /// Whether `password` matches `stored`, compared in constant time.
    func verify(_ password: String, against stored: String) -> Bool {
        let parts = stored.split(separator: "$")
        guard parts.count == 6, parts[0] == "scrypt", let n = Int(parts[1]),
            let salt = Data(base64Encoded: String(parts[4])), let expected = Data(base64Encoded: String(parts[5])),
            let actual = try? derive(password, salt: Array(salt), cost: n)
        else { return false }
        guard actual.count == expected.count else { return false }
        return zip(actual, expected).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// Burns the same time as a real check, so unknown emails are not revealed by timing.
    func dummyVerify(_ password: String) {
        _ = try? derive(password, salt: Array(repeating: 0, count: 16), cost: cost)
    }

    private func derive(_ password: String, salt: [UInt8], cost: Int) throws -> [UInt8] {
        let key = try KDF.Scrypt.deriveKey(
            from: Array(password.utf8), salt: salt, outputByteCount: 32, rounds: cost, blockSize: 8, parallelism: 1,
            maxMemory: 256 * 1024 * 1024)
        return key.withUnsafeBytes { Array($0) }
    }
}
