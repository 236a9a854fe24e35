/// Everything decrypting or unwrapping can fail with. None of them says which byte was wrong: an
/// authenticated format only knows that something was.
public enum VaultCryptoError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The passphrase or recovery key does not open the vault key.
    case wrongSecret
    /// Ciphertext that fails authentication: tampered, truncated, reordered, or of another key.
    case corrupt(String)
    /// Input of the wrong shape (length, encoding, version).
    case malformed(String)
    /// A name too long to encrypt within the path rules.
    case nameTooLong(String)

    public var description: String {
        switch self {
        case .wrongSecret: "the passphrase or recovery key is wrong"
        case .corrupt(let what): "\(what) failed authentication: it was changed, cut short, or encrypted with another key"
        case .malformed(let why): why
        case .nameTooLong(let why): why
        }
    }
}
