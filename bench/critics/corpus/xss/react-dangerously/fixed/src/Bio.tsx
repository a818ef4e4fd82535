import DOMPurify from 'dompurify';

export function Bio() {
  const params = new URLSearchParams(window.location.search);
  const bio = params.get('bio') ?? '';
  return <section dangerouslySetInnerHTML={{ __html: DOMPurify.sanitize(bio) }} />;
}
