import Crypto
import Foundation

/// A one-time code as a person types it (an enrolment code, an invitation code; an app password is
/// one of 24 characters): 12 characters of
/// Crockford's base32 (60 random bits) in three groups, `7K3Q-M9XD-2HTA`. Read leniently (any
/// case, with or without dashes or spaces, O for 0 and I or L for 1); kept only as its SHA-256.
enum OneTimeCode {
    static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
    /// How long an enrolment code can be used: it is typed on a device at hand.
    static let enrollmentLifetime: TimeInterval = 15 * 60
    /// How long an invitation code can be used: it travels to another person first.
    static let invitationLifetime: TimeInterval = 7 * 24 * 3600

    /// A new code of `groups` groups of four (60 random bits for three; an app password has six).
    static func generate(groups: Int = 3) -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<groups).map { _ in String((0..<4).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] }) }.joined(separator: "-")
    }

    /// The code's canonical form, or nil when it cannot be one of `length` characters.
    static func normalized(_ text: String, length: Int = 12) -> String? {
        var out = ""
        for character in text.uppercased() where character != "-" && character != " " {
            let mapped: Character = switch character {
            case "O": "0"
            case "I", "L": "1"
            default: character
            }
            guard alphabet.contains(mapped) else { return nil }
            out.append(mapped)
        }
        return out.count == length ? out : nil
    }

    static func hash(_ normalized: String) -> String {
        Hex.encode(SHA256.hash(data: Data(normalized.utf8)))
    }
}
