import Foundation

/// One instruction of a `PROPPATCH` body (RFC 4918 §9.2), in document order.
enum PropertyUpdate: Equatable, Sendable {
    /// A dead property set to a value, the XML the client sent inside the property's element.
    case set(DAVProperty, String)
    case remove(DAVProperty)

    var property: DAVProperty {
        switch self {
        case .set(let property, _), .remove(let property): property
        }
    }

    /// Parses a `propertyupdate` body.
    /// - Throws: ``ServiceError/invalidRequest(_:)`` for XML that does not parse or is not a
    ///   `DAV:propertyupdate` with at least one property.
    static func parse(_ data: Data) throws -> [PropertyUpdate] {
        let tree = try DAVXMLTree.parse(data)
        guard tree.namespace == "DAV:", tree.name == "propertyupdate" else { throw ServiceError.invalidRequest("the body is not a DAV:propertyupdate") }
        var updates: [PropertyUpdate] = []
        for instruction in tree.children where instruction.namespace == "DAV:" && (instruction.name == "set" || instruction.name == "remove") {
            for prop in instruction.children where prop.namespace == "DAV:" && prop.name == "prop" {
                for element in prop.children {
                    let property = DAVProperty(namespace: element.namespace, name: element.name)
                    updates.append(instruction.name == "set" ? .set(property, element.innerXML) : .remove(property))
                }
            }
        }
        guard !updates.isEmpty else { throw ServiceError.invalidRequest("the propertyupdate names no property") }
        return updates
    }
}

/// What a `PROPPATCH` does: all of it or nothing (RFC 4918 §9.2). Pure.
enum DAVPropPatch {
    /// The properties the server keeps itself; a client can neither set nor remove them.
    static let protected: Set<DAVProperty> = Set(
        ["displayname", "resourcetype", "getetag", "getlastmodified", "getcontentlength", "getcontenttype", "lockdiscovery", "supportedlock", "creationdate"].map(DAVProperty.dav))

    /// The most dead properties a path keeps, the longest value, the most bytes of values a path
    /// keeps, and a vault (12.5 MiB a path, on every path and empty folder, grew a database to
    /// 63 MB while the account's usage read 1 byte); what they keep counts toward the quota too.
    static let maxPerPath = 200
    static let maxValueBytes = 64 * 1024
    static let maxBytesPerPath = 256 * 1024
    static let maxBytesPerVault = 16 * 1024 * 1024

    enum Decision: Equatable, Sendable {
        /// Each property's final value (nil: removed), to be applied together.
        case apply([DAVProperty: String?])
        /// Nothing is applied: each property with the status it answers with (`403` for the ones
        /// refused, `424 Failed Dependency` for the others).
        case refuse([Answer], reason: String)
    }

    struct Answer: Equatable, Sendable {
        let property: DAVProperty
        let status: Int
    }

    /// The bytes a property keeps toward the account's quota: its name and value.
    static func keptBytes(_ property: DAVProperty, valueBytes: Int) -> Int {
        property.namespace.utf8.count + property.name.utf8.count + valueBytes
    }

    /// `updates` in order against the names the path has now (`existing`), with the bytes of their
    /// values (`sizes`), of the whole vault's (`vaultBytes`), and what the account may still keep
    /// (`room`, nil without a quota: more is refused with `507 Insufficient Storage`).
    static func decide(_ updates: [PropertyUpdate], existing: Set<DAVProperty>, sizes: [DAVProperty: Int] = [:], vaultBytes: Int = 0, room: Int64? = nil) -> Decision {
        var final: [DAVProperty: String?] = [:]
        for update in updates {
            switch update {
            case .set(let property, let value): final[property] = .some(value)
            case .remove(let property): final[property] = .some(nil)
            }
        }
        let order = updates.map(\.property).reduce(into: [DAVProperty]()) { if !$0.contains($1) { $0.append($1) } }
        var reason: String?
        var refused: Set<DAVProperty> = []
        for property in order where protected.contains(property) {
            refused.insert(property)
            reason = "{DAV:}\(property.name) is the server's own and cannot be changed"
        }
        if reason == nil, let long = order.first(where: { (final[$0] ?? nil).map { $0.utf8.count > maxValueBytes } ?? false }) {
            refused.insert(long)
            reason = "a property's value is at most \(maxValueBytes / 1024) KiB"
        }
        let after = existing.union(final.filter { $0.value != nil }.keys).subtracting(final.filter { $0.value == nil }.keys)
        if reason == nil, after.count > maxPerPath {
            refused.formUnion(order.filter { final[$0] ?? nil != nil && !existing.contains($0) })
            reason = "a path keeps at most \(maxPerPath) properties"
        }
        let valueAfter = { (property: DAVProperty) in (final[property] ?? nil)?.utf8.count ?? (final[property] == nil ? sizes[property] ?? 0 : 0) }
        let bytesBefore = existing.reduce(0) { $0 + (sizes[$1] ?? 0) }
        let bytesAfter = after.reduce(0) { $0 + valueAfter($1) }
        let growing = order.filter { ((final[$0] ?? nil)?.utf8.count ?? 0) > (sizes[$0] ?? 0) }
        var status = 403
        if reason == nil, bytesAfter > maxBytesPerPath, bytesAfter > bytesBefore {
            refused.formUnion(growing)
            reason = "a path keeps at most \(maxBytesPerPath / 1024) KiB of properties"
        }
        if reason == nil, vaultBytes - bytesBefore + bytesAfter > maxBytesPerVault, bytesAfter > bytesBefore {
            refused.formUnion(growing)
            reason = "a vault keeps at most \(maxBytesPerVault / 1024 / 1024) MiB of WebDAV properties"
        }
        let growth = after.reduce(0) { $0 + keptBytes($1, valueBytes: valueAfter($1)) } - existing.reduce(0) { $0 + keptBytes($1, valueBytes: sizes[$1] ?? 0) }
        if reason == nil, let room, growth > 0, Int64(growth) > room {
            refused.formUnion(order.filter { final[$0] ?? nil != nil })
            status = 507
            reason = "storage full: the properties need \(growth) bytes more and the account has \(max(0, room)) left; remove properties or ask for a larger quota"
        }
        guard let reason else { return .apply(final) }
        return .refuse(order.map { Answer(property: $0, status: refused.contains($0) ? status : 424) }, reason: reason)
    }
}
