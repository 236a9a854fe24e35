import Crypto
import Foundation

/// Signs and checks the built-in store's blob URLs: HMAC-SHA256 over method, key, expiry and
/// size. A changed byte anywhere in them, or an expired URL, is refused.
struct URLSigner: Sendable {
    private let key: SymmetricKey

    init(secret: SymmetricKey) {
        self.key = HKDF<SHA256>.deriveKey(inputKeyMaterial: secret, info: Data("vaultsync-blob-url".utf8), outputByteCount: 32)
    }

    func signature(method: String, key blobKey: String, expires: Int64, size: Int64?) -> String {
        let message = "\(method)\n\(blobKey)\n\(expires)\n\(size.map(String.init) ?? "-")"
        let mac = HMAC<SHA256>.authenticationCode(for: Array(message.utf8), using: key)
        return Hex.encode(mac)
    }

    /// Checks a presented URL's parameters.
    /// - Throws: ``ServiceError/invalidSignature`` or ``ServiceError/urlExpired``.
    func verify(method: String, key blobKey: String, expires: Int64?, size: Int64?, signature: String?, now: Date) throws {
        guard let expires, let signature else { throw ServiceError.invalidSignature }
        let expected = self.signature(method: method, key: blobKey, expires: expires, size: size)
        guard expected.utf8.count == signature.utf8.count,
            zip(expected.utf8, signature.utf8).reduce(UInt8(0), { $0 | ($1.0 ^ $1.1) }) == 0
        else { throw ServiceError.invalidSignature }
        guard Int64(now.timeIntervalSince1970) <= expires else { throw ServiceError.urlExpired }
    }
}
