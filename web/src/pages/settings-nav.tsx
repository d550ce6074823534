import { Link, useLocation } from 'wouter';

const SECTIONS = [
  ['/settings', 'Workspace'],
  ['/settings/webhooks', 'Webhooks'],
] as const;

/** The settings pages, as tabs under the page title. */
export function SettingsNav() {
  const [location] = useLocation();
  return (
    <nav aria-label="Settings" className="tabs">
      <ul>
        {SECTIONS.map(([href, label]) => (
          <li key={href}>
            <Link href={href} aria-current={location === href ? 'page' : undefined}>
              {label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}
