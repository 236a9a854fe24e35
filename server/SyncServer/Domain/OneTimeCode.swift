import Crypto
import Foundation

/// A one-time code as a person types it (an enrolment code, an invitation code): 12 characters of
/// Crockford's base32 (60 random bits) in three groups, `7K3Q-M9XD-2HTA`. Read leniently (any
/// case, with or without dashes or spaces, O for 0 and I or L for 1); kept only as its SHA-256.
enum OneTimeCode {
    static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
    /// How long an enrolment code can be used: it is typed on a device at hand.
    static let enrollmentLifetime: TimeInterval = 15 * 60
    /// How long an invitation code can be used: it travels to another person first.
    static let invitationLifetime: TimeInterval = 7 * 24 * 3600

    static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        let characters = (0..<12).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] }
        return [characters[0..<4], characters[4..<8], characters[8..<12]].map { String($0) }.joined(separator: "-")
    }

    /// The code's canonical form, or nil when it cannot be one.
    static func normalized(_ text: String) -> String? {
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
        return out.count == 12 ? out : nil
    }

    static func hash(_ normalized: String) -> String {
        Hex.encode(SHA256.hash(data: Data(normalized.utf8)))
    }
}
