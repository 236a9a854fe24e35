import Foundation

/// The properties a resource has and what a `PROPFIND` answers for it (RFC 4918 §15). Pure.
enum DAVProperties {
    /// Every live property of `resource` with its value as XML.
    static func live(_ resource: DAVResource, displayName: String) -> [(DAVProperty, String)] {
        var properties: [(DAVProperty, String)] = [
            (.dav("displayname"), Multistatus.escape(displayName)),
            (.dav("resourcetype"), resource.collection ? "<D:collection/>" : ""),
            (.dav("getetag"), resource.etag),  // hex in quotes, which character data takes as they are
            (.dav("getlastmodified"), DAVListing.httpDate(resource.modified)),
        ]
        if !resource.collection {
            properties.append((.dav("getcontentlength"), String(resource.sizeBytes)))
            properties.append((.dav("getcontenttype"), Multistatus.escape(DAVListing.contentType(resource.path))))
        }
        return properties
    }

    /// The `response` for `resource` answering `body`: its live properties, the `dead` ones
    /// clients set, and with `lockdiscovery` (its locks' XML; nil outside a vault) the lock ones.
    static func entry(
        _ resource: DAVResource, href: String, displayName: String, body: PropfindBody, dead: [(DAVProperty, String)] = [], lockdiscovery: String? = nil
    ) -> Multistatus.Entry {
        var properties = live(resource, displayName: displayName)
        if let lockdiscovery {
            properties += [(.dav("supportedlock"), DAVLockXML.supportedlock), (.dav("lockdiscovery"), lockdiscovery)]
        }
        properties += dead
        switch body {
        case .allprop:
            return Multistatus.Entry(href: href, found: properties)
        case .propname:
            return Multistatus.Entry(href: href, found: properties.map { ($0.0, "") })
        case .prop(let wanted):
            let values = Dictionary(properties.map { ($0.0, $0.1) }) { first, _ in first }
            var entry = Multistatus.Entry(href: href)
            for property in wanted {
                if let value = values[property] { entry.found.append((property, value)) } else { entry.missing.append(property) }
            }
            return entry
        }
    }

    /// The last segment of a path (the vault's name for its root).
    static func displayName(_ path: String, vault: String) -> String {
        path.isEmpty ? vault : String(path[(path.lastIndex(of: "/").map(path.index(after:)) ?? path.startIndex)...])
    }
}
