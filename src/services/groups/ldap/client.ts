import { Client, InvalidDNSyntaxError, NoSuchObjectError, escapeFilter, type Entry } from 'ldapts';
import type { LdapConfig } from '../../../config.js';
import { AppError } from '../../../errors.js';

/** What group sync reads from the directory; every call goes to the server. */
export interface LdapDirectory {
  /**
   * The member DNs of the LDAP group(s) named `cn` under the base: groupOfNames `member`,
   * groupOfUniqueNames `uniqueMember`, and posixGroup `memberUid` looked up to the entry with that
   * uid. Empty when no such group exists (GitLab syncs a link to a missing group as empty).
   */
  groupMemberDns(cn: string): Promise<string[]>;
  /** The DNs of the entries under the base that an LDAP filter (a filter link's) matches. */
  filterMemberDns(filter: string): Promise<string[]>;
  /** Whether an entry with this DN exists; a DN the server cannot parse names no entry. */
  entryExists(dn: string): Promise<boolean>;
  close(): Promise<void>;
}

const GROUP_CLASSES = '(|(objectClass=groupOfNames)(objectClass=groupOfUniqueNames)(objectClass=posixGroup))';
/** memberUid values looked up per search: keeps one filter well under server limits. */
const UID_CHUNK = 100;

/**
 * Connects to config.ldap's server and binds with its bind DN and password (anonymously when the
 * bind DN is empty). A server that cannot be reached or refuses the bind is `unavailable`: sync
 * then stops before it writes anything, so an outage never strips LDAP-granted memberships.
 */
export async function connectDirectory(config: LdapConfig): Promise<LdapDirectory> {
  const client = new Client({ url: config.url, timeout: 30_000, connectTimeout: 10_000 });
  // A failed unbind only leaves a socket that the server times out; nothing read is lost.
  const close = () => client.unbind().catch(() => undefined);
  if (config.bindDn) {
    try {
      await client.bind(config.bindDn, config.password);
    } catch (error) {
      await close();
      throw unavailable('bind', error);
    }
  }
  const search = async (base: string, filter: string, attributes: string[]) => {
    try {
      return (await client.search(base, { scope: 'sub', filter, attributes })).searchEntries;
    } catch (error) {
      throw unavailable('search', error);
    }
  };

  return {
    groupMemberDns: async (cn) => {
      const groups = await search(config.base, `(&${escapeFilter`(cn=${cn})`}${GROUP_CLASSES})`, ['member', 'uniqueMember', 'memberUid']);
      const dns = groups.flatMap((group) => [...values(group, 'member'), ...values(group, 'uniqueMember').map(withoutUid)]);
      const uids = groups.flatMap((group) => values(group, 'memberUid'));
      for (let i = 0; i < uids.length; i += UID_CHUNK) {
        const filter = `(|${uids.slice(i, i + UID_CHUNK).map((uid) => escapeFilter`(uid=${uid})`).join('')})`;
        dns.push(...(await search(config.base, filter, ['1.1'])).map((entry) => entry.dn));
      }
      return dns;
    },
    filterMemberDns: async (filter) => (await search(config.base, filter, ['1.1'])).map((entry) => entry.dn),
    entryExists: async (dn) => {
      try {
        return (await client.search(dn, { scope: 'base', filter: '(objectClass=*)', attributes: ['1.1'] })).searchEntries.length > 0;
      } catch (error) {
        if (error instanceof NoSuchObjectError || error instanceof InvalidDNSyntaxError) return false;
        throw unavailable('search', error);
      }
    },
    close,
  };
}

const unavailable = (what: string, cause: unknown) => new AppError('unavailable', `LDAP ${what} failed`, { cause });

/** An attribute's values as text: ldapts gives one value as a string and several as an array. */
function values(entry: Entry, attribute: string): string[] {
  const raw = entry[attribute];
  if (raw === undefined) return [];
  return (Array.isArray(raw) ? raw : [raw]).map((value) => (Buffer.isBuffer(value) ? value.toString('utf8') : String(value)));
}

/** A uniqueMember value may end with an optional unique identifier (`#'0101'B`, RFC 4517 NameAndOptionalUID). */
const withoutUid = (value: string): string => value.replace(/#'[01]*'B$/, '');
