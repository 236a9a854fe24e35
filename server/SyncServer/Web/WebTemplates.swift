import Mustache

/// The web app's Mustache templates, compiled into the server so that the one binary is all an
/// operator installs. `{{value}}` escapes what it shows; the only `{{{triple}}}` is a note's
/// rendered body (``MarkdownHTML``, which escapes the note itself).
enum WebTemplates {
    static func library() throws -> MustacheLibrary {
        var library = MustacheLibrary()
        for (name, text) in all + operatorPages + memberPages + searchPages { try library.register(text, named: name) }
        return library
    }

    static let all: [(String, String)] = [
        ("header", header), ("footer", footer), ("crumbs", crumbs), ("signin", signin), ("vaults", vaults), ("folder", folder),
        ("invitations-to-you", invitationsToYou), ("file", file), ("history", history), ("error", error), ("devices", devices), ("storage", storage), ("deleted", deleted), ("diff", diff), ("conflicts", conflicts), ("conflict", conflict), ("account", account), ("export", export), ("activity", activity), ("enroll", enroll), ("provider-return", providerReturn), ("account-delete", accountDelete),
    ]

    static let header = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>{{title}} · VaultSync</title>
        {{#refresh}}<meta http-equiv="refresh" content="2">{{/refresh}}
        <link rel="stylesheet" href="/app/assets/app.css">
        </head>
        <body>
        <a class="skip" href="#main">Skip to the content</a>
        <header class="bar">
        <a class="brand" href="/app/">VaultSync</a>
        {{#signedIn}}
        <button type="button" class="menu-toggle" aria-expanded="false" aria-controls="account-nav">Menu</button>
        <nav aria-label="Account" id="account-nav">
        <a href="/app/">Vaults</a>
        <a href="/app/devices">Devices</a>
        <a href="/app/enroll">Add a device</a>
        <a href="/app/storage">Storage</a>
        <a href="/app/account">Account</a>
        {{#isAdmin}}<a href="/app/admin/">Operator</a>{{/isAdmin}}
        <form method="post" action="/app/signout" class="inline">
        <input type="hidden" name="form_token" value="{{formToken}}">
        <button type="submit">Sign out</button>
        </form>
        </nav>
        {{/signedIn}}
        </header>
        <main id="main">
        {{#notice}}<p class="notice" role="status">{{notice}}</p>{{/notice}}

        """

    static let footer = """
        </main>
        <script src="/app/assets/app.js" defer></script>
        </body>
        </html>

        """

    /// The page a provider's cross-site form post lands on: it posts the answer on from this site
    /// (the script does it at once; without script, the button).
    static let providerReturn = """
        {{> header}}
        <h1>Signing in with {{label}}</h1>
        <form method="post" action="{{action}}" data-autosubmit>
        {{#fields}}<input type="hidden" name="{{name}}" value="{{value}}">{{/fields}}
        <p>{{label}} answered. Continue to finish signing in here.</p>
        <button type="submit">Continue</button>
        </form>
        {{> footer}}
        """

    static let crumbs = """
        {{#crumbs}}<div class="vault-bar">
        <nav aria-label="Breadcrumbs" class="crumbs"><ol>
        {{#items}}<li>{{#href}}<a href="{{href}}">{{name}}</a>{{/href}}{{^href}}<span aria-current="page">{{name}}</span>{{/href}}</li>{{/items}}
        </ol></nav>
        {{#search}}<form role="search" class="search" method="get" action="{{action}}">
        <label for="search-q" class="visually-hidden">Search the notes</label>
        <input id="search-q" type="search" name="q" value="{{query}}" placeholder="Search notes" required maxlength="500" autocomplete="off">
        <button type="submit">Search</button>
        </form>{{/search}}
        </div>{{/crumbs}}

        """

    static let signin = """
        {{> header}}
        <h1>Sign in</h1>
        {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
        <form method="post" action="/app/signin" class="stacked">
        <input type="hidden" name="form_token" value="{{formToken}}">
        <label for="email">Email</label>
        <input id="email" name="email" type="email" autocomplete="username" required value="{{email}}">
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required>
        <button type="submit">Sign in</button>
        </form>
        {{#hasProviders}}
        <h2>Or</h2>
        <ul class="actions">{{#providers}}<li><a class="button" href="/app/signin/{{name}}/start">Sign in with {{label}}</a></li>{{/providers}}</ul>
        {{/hasProviders}}
        {{> footer}}
        """

    static let vaults = """
        {{> header}}
        <h1>Your vaults</h1>
        {{^hasVaults}}<p>You have no vault yet: link a folder with <code>vaultsync init</code>.</p>{{/hasVaults}}
        {{#hasVaults}}
        <table>
        <caption class="visually-hidden">Vaults</caption>
        <thead><tr><th scope="col">Vault</th><th scope="col">Files</th><th scope="col">Size</th><th scope="col">Created</th></tr></thead>
        <tbody>
        {{#vaults}}<tr><td><a href="{{href}}">{{name}}</a>{{#encrypted}} <span class="tag">end-to-end encrypted</span>{{/encrypted}}{{#shared}} <span class="tag">shared with you: {{role}}</span>{{/shared}}</td><td>{{files}}</td><td>{{size}}</td><td><time datetime="{{created}}">{{created}}</time></td></tr>
        {{/vaults}}
        </tbody>
        </table>
        <h2>Manage</h2>
        {{#owned}}<details><summary>{{name}}</summary>
        <form method="post" action="/app/vaults/rename" class="inline-form">
        <input type="hidden" name="form_token" value="{{formToken}}"><input type="hidden" name="vault" value="{{id}}">
        <label for="rename-{{id}}">New name for {{name}}</label><input id="rename-{{id}}" name="name" value="{{name}}" required maxlength="100">
        <button type="submit">Rename</button>
        </form>
        <form method="post" action="/app/vaults/delete" class="inline-form">
        <input type="hidden" name="form_token" value="{{formToken}}"><input type="hidden" name="vault" value="{{id}}">
        <label for="delete-{{id}}">To delete {{name}} and every version of its files, type its name</label><input id="delete-{{id}}" name="confirm" required autocomplete="off">
        <button type="submit" class="danger">Delete the vault</button>
        </form>
        </details>{{/owned}}
        {{/hasVaults}}
        {{> invitations-to-you}}
        <form method="post" action="/app/vaults/create" class="inline-form">
        <input type="hidden" name="form_token" value="{{formToken}}">
        <label for="new-vault">A new vault named</label><input id="new-vault" name="name" required maxlength="100">
        <button type="submit">Create</button>
        </form>
        {{> footer}}
        """

    static let folder = """
        {{> header}}
        {{> crumbs}}
        <h1>{{heading}}{{#asOf}} <span class="as-of">as it was</span>{{/asOf}}</h1>
        {{#asOf}}<p class="notice" role="status">This is {{whole}} as it was (<time datetime="{{asOf}}">{{asOf}}</time>): read-only; each file opens at its version then. <a href="{{nowHref}}">Back to now</a></p>
        {{#canRestore}}<form method="post" action="{{restoreAsOfAction}}" class="stacked">
        <input type="hidden" name="form_token" value="{{formToken}}"><input type="hidden" name="folder" value="{{folder}}"><input type="hidden" name="as_of" value="{{asOf}}">
        <p>Restoring sets every file here back as it was then: files changed since take their content then, deleted ones come back, ones made since are deleted. It is one change every device gets, and it can be undone the same way.</p>
        <button type="submit">Restore {{whole}} as it was</button>
        </form>{{/canRestore}}{{/asOf}}
        {{^asOf}}<p class="actions"><a href="{{deletedHref}}">Deleted files</a> <a href="{{conflictsHref}}">Conflicts</a> <a href="{{activityHref}}">Activity</a> <a href="{{exportHref}}">Export</a> <a href="{{membersHref}}">Members</a></p>{{/asOf}}
        {{#undoHref}}<p><a href="{{undoHref}}">See it as it was just before, to undo it</a></p>{{/undoHref}}
        {{#encrypted}}<p class="notice">This vault is end-to-end encrypted: the server holds only ciphertext, so it shows how many files there are, their sizes and times, never their names or content.</p>{{/encrypted}}
        {{#summary}}<p>{{summary}}</p>{{/summary}}
        {{^encrypted}}{{^hasEntries}}<p>This folder is empty.</p>{{/hasEntries}}{{/encrypted}}
        {{#hasEntries}}
        <table>
        <caption class="visually-hidden">Files and folders in {{heading}}</caption>
        <thead><tr><th scope="col">Name</th><th scope="col">Size</th><th scope="col">Changed</th></tr></thead>
        <tbody>
        {{#entries}}<tr><td>{{#folder}}<svg class="icon" aria-hidden="true" focusable="false" viewBox="0 0 16 16" width="16" height="16"><path d="M1.5 3h4.6l1.4 1.5h7v8.5h-13z" fill="none" stroke="currentColor" stroke-width="1.3" stroke-linejoin="round"/></svg> {{/folder}}<a href="{{href}}">{{name}}</a></td><td>{{size}}</td><td>{{#changed}}<time datetime="{{changed}}">{{changed}}</time>{{/changed}}</td></tr>
        {{/entries}}
        </tbody>
        </table>
        {{/hasEntries}}
        {{^encrypted}}{{#asOfForm}}<form method="get" action="{{filesHref}}" class="stacked" data-local-time>
        <input type="hidden" name="folder" value="{{folder}}"><input type="hidden" name="as_of" value="">
        <label for="when">See {{whole}} as it was on</label>
        <input type="datetime-local" id="when" name="when" step="1" required data-utc="as_of">
        <button type="submit">Show it</button>
        </form>{{/asOfForm}}{{/encrypted}}
        {{> footer}}
        """

    static let file = """
        {{> header}}
        {{> crumbs}}
        <h1>{{heading}}</h1>
        {{#olderVersion}}<p class="notice" role="status">This is version {{version}}, not the current one.</p>{{/olderVersion}}
        <p class="meta">Version {{version}} · {{size}} · changed <time datetime="{{changed}}">{{changed}}</time>{{#device}} on {{device}}{{/device}}</p>
        <p class="actions"><a href="{{downloadHref}}">Download</a> <a href="{{historyHref}}">History</a></p>
        {{#tooLarge}}<p>This file is too large to show here; download it.</p>{{/tooLarge}}
        {{#notText}}<p>This file is not a note; download it to open it.</p>{{/notText}}
        {{#imageHref}}<p><img class="shown" src="{{imageHref}}" alt="{{heading}}, version {{version}}"></p>{{/imageHref}}
        {{#pdfHref}}<object class="shown-pdf" data="{{pdfHref}}" type="application/pdf" aria-label="{{heading}}, version {{version}}"><p><a href="{{pdfHref}}">Open the PDF</a> (in the browser's own viewer)</p></object>{{/pdfHref}}
        {{#encrypted}}<p class="notice">This vault is end-to-end encrypted: the server holds only ciphertext, so a device shows this file.</p>{{/encrypted}}
        {{#hasFields}}
        <section aria-labelledby="fields-heading" class="fields">
        <h2 id="fields-heading">Properties</h2>
        <dl>{{#fields}}<dt>{{key}}</dt><dd>{{#isList}}<ul class="chips">{{#items}}<li>{{item}}</li>{{/items}}</ul>{{/isList}}{{^isList}}{{value}}{{/isList}}</dd>{{/fields}}</dl>
        </section>
        {{/hasFields}}
        {{#hasOutline}}
        <nav aria-labelledby="outline-heading" class="outline">
        <h2 id="outline-heading">Outline</h2>
        <ol>{{#outline}}<li class="depth-{{depth}}"><a href="{{href}}">{{text}}</a></li>{{/outline}}</ol>
        </nav>
        {{/hasOutline}}
        {{#body}}<article class="note">{{{body}}}</article>{{/body}}
        {{#hasBacklinks}}
        <section aria-labelledby="backlinks-heading" class="backlinks">
        <h2 id="backlinks-heading">Linked from</h2>
        <ul>{{#backlinks}}<li><a href="{{href}}">{{path}}</a></li>{{/backlinks}}</ul>
        </section>
        {{/hasBacklinks}}
        {{> footer}}
        """

    static let history = """
        {{> header}}
        {{> crumbs}}
        <h1>History of {{heading}}</h1>
        <table>
        <caption class="visually-hidden">Versions of {{heading}}, newest first</caption>
        <thead><tr><th scope="col">Version</th><th scope="col">When</th><th scope="col">Device</th><th scope="col">Size</th><th scope="col">Actions</th></tr></thead>
        <tbody>
        {{#versions}}<tr><td>{{version}}{{#current}} (current){{/current}}</td><td><time datetime="{{created}}">{{created}}</time>{{#imported}} (imported <time datetime="{{imported}}">{{imported}}</time>){{/imported}}</td><td>{{device}}{{#origin}} ({{origin}}){{/origin}}</td><td>{{#deleted}}deleted{{/deleted}}{{^deleted}}{{size}}{{/deleted}}</td>
        <td>{{#viewHref}}<a href="{{viewHref}}" aria-label="View version {{version}}">View</a>{{/viewHref}}
        {{#compareHref}}<a href="{{compareHref}}" aria-label="Compare version {{version}} with the one before">Changes</a>{{/compareHref}}
        {{#restorable}}<form method="post" action="{{restoreAction}}" class="inline">
        <input type="hidden" name="form_token" value="{{formToken}}">
        <input type="hidden" name="path" value="{{path}}">
        <input type="hidden" name="version" value="{{version}}">
        <button type="submit" aria-label="Restore version {{version}}">Restore</button>
        </form>{{/restorable}}</td></tr>
        {{/versions}}
        </tbody>
        </table>
        {{> footer}}
        """

    static let error = """
        {{> header}}
        <h1>{{heading}}</h1>
        <p role="alert">{{message}}</p>
        <p><a href="/app/">Back to your vaults</a></p>
        {{> footer}}
        """
}
