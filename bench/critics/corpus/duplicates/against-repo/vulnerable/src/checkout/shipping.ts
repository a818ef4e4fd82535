export function shippingAddress(form: { street: string; city: string; zip: string; country?: string }) {
  const street = form.street.trim().replace(/\s+/g, ' ');
  const city = form.city.trim().toUpperCase(); // VULN: duplicate
  const zip = form.zip.replace(/[^0-9A-Z]/gi, '').toUpperCase();
  if (zip.length < 4 || zip.length > 10) {
    throw new RangeError(`invalid postal code: ${form.zip}`);
  }
  const country = (form.country ?? 'DE').trim().toUpperCase();
  return { street, city, zip, country, label: `${street}, ${zip} ${city}, ${country}` };
}
