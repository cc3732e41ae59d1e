// Every citation in the code points into docs/ or to a public URL (issue 17): no comment, label or
// README names a document outside the repository, and every `docs/….md#anchor` names a heading of
// that document under GitHub's anchor rules.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = resolve(import.meta.dirname, '../../..')
const FOLDERS = ['src-main', 'src-shared', 'src-renderer', 'tests', 'bench', 'scripts', 'resources']
const FILES = ['eslint.config.js', 'README.md']
const EXTENSIONS = /\.(ts|svelte|js|mjs|md)$/
const THIS_FILE = relative(ROOT, import.meta.filename)

/** The design and reference notes that once lived beside the repository, and how code cited them. */
const OUTSIDE_CITATIONS: [string, RegExp][] = [
  // A path inside a URL (…/logs/reference/…) is the vendor's, not our notes folder.
  ['reference notes folder', /(?<![\w/.-])reference\//],
  ['API reference', /\bcf-api\b/],
  ['rules-engine reference', /\brules-engine\b/],
  ['storage reference', /\bdo-storage\b/],
  ['desktop notes', /\bdesktop\.md\b/],
  ['appendix of the reference', /\bAppendix [A-D]\b/],
  ['section of the reference', /\breference §/],
  ['design document', /\bDESIGN\.md\b/],
  ['specification', /\bSPEC\.md\b/],
  ['the mission brief', /\bthe mission\b/i],
  // A numbered section is cited only after the public standard it belongs to (RFC 3986 §5.2.4).
  ['bare section number', /(?<!\bRFC \d+ )§\s?\d/],
]

const DOCS_ANCHOR = /\bdocs\/((?:[\w.-]+\/)*[\w.-]+\.md)#([\w-]+)/g

function sourceFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && EXTENSIONS.test(entry.name))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)))
    .filter((path) => !path.split('/').includes('node_modules') && path !== THIS_FILE)
}

const scanned = [...FOLDERS.flatMap(sourceFiles), ...FILES].map((path) => ({
  path,
  lines: readFileSync(join(ROOT, path), 'utf8').split('\n'),
}))

/**
 * GitHub's heading anchors: lower-cased, punctuation dropped, spaces to hyphens, and a repeated
 * heading suffixed -1, -2… (https://github.com/Flet/github-slugger, the rules GitHub follows).
 */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  let fenced = false
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced
    const heading = !fenced && /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)
    if (!heading) continue
    const slug = (heading[1] ?? '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-')
    const count = seen.get(slug) ?? 0
    seen.set(slug, count + 1)
    anchors.add(count === 0 ? slug : `${slug}-${count}`)
  }
  return anchors
}

describe('citations', () => {
  it('name no document outside the repository', () => {
    const found = scanned.flatMap(({ path, lines }) =>
      lines.flatMap((line, index) =>
        OUTSIDE_CITATIONS.filter(([, pattern]) => pattern.test(line)).map(
          ([what]) => `${path}:${index + 1}: ${what}: ${line.trim()}`,
        ),
      ),
    )
    expect(found).toEqual([])
  })

  it('into docs/ name a heading of the document they cite', () => {
    const anchors = new Map<string, Set<string> | undefined>()
    const cited = scanned.flatMap(({ path, lines }) =>
      lines.flatMap((line, index) =>
        [...line.matchAll(DOCS_ANCHOR)].map(([, document = '', anchor = '']) => ({
          where: `${path}:${index + 1}`,
          document,
          anchor,
        })),
      ),
    )
    for (const { document } of cited) {
      const file = join(ROOT, 'docs', document)
      if (!anchors.has(document))
        anchors.set(
          document,
          existsSync(file) ? headingAnchors(readFileSync(file, 'utf8')) : undefined,
        )
    }
    const unresolved = cited
      .filter(({ document, anchor }) => !anchors.get(document)?.has(anchor))
      .map(({ where, document, anchor }) => `${where}: docs/${document}#${anchor}`)
    expect(cited.length).toBeGreaterThan(40)
    expect(unresolved).toEqual([])
  })

  it('follow GitHub anchor rules', () => {
    const anchors = headingAnchors(
      '# Old citation → new section\n## Creating, updating and positioning rules\n```\n# not a heading\n```\n## `src-shared/`: shared\n## Events\n## Events\n',
    )
    expect([...anchors]).toEqual([
      'old-citation--new-section',
      'creating-updating-and-positioning-rules',
      'src-shared-shared',
      'events',
      'events-1',
    ])
  })
})
