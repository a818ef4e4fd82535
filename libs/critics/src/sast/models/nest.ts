import type { DecoratorSource, FrameworkModel } from './types.js';

const INPUT: readonly DecoratorSource[] = [
  { name: 'Body', yields: 'input', whole: true },
  { name: 'Query', yields: 'input', whole: true },
  { name: 'Param', yields: 'input', scalar: true },
  { name: 'Headers', yields: 'input', scalar: true },
  { name: 'Args', yields: 'input', whole: true },
  { name: 'Cookies', yields: 'input' },
  { name: 'UploadedFile', yields: 'input' },
  { name: 'UploadedFiles', yields: 'input' },
  { name: 'Payload', yields: 'input' },
  // routing-controllers
  ...[
    'QueryParam',
    'QueryParams',
    'Params',
    'BodyParam',
    'HeaderParam',
    'HeaderParams',
    'CookieParam',
    'CookieParams',
  ].map((name): DecoratorSource => ({ name, yields: 'input' })),
  { name: 'Req', yields: 'request' },
  { name: 'Request', yields: 'request' },
];

/**
 * NestJS (and routing-controllers): parameter decorators inject input; a `Parse*Pipe` turns it into
 * a safe scalar; a DTO class with class-validator decorators is validated by Nest's ValidationPipe.
 */
export const nestModel: FrameworkModel = {
  id: 'nest',
  description:
    '@Body/@Query/@Param/@Headers/@Args/@Cookies/@UploadedFile/@Payload, @Req, routing-controllers @QueryParam…, Parse*Pipe, class-validator DTOs, ExecutionContext.switchToHttp().getRequest().',
  entryHint: /@(Body|Query|Param|Header|Req|Request|Args|Cookie|Uploaded|Payload)\w*\s*\(/,
  requests: [{ flavor: 'http', origin: 'http', fields: [], selfMethods: ['getRequest', 'switchToHttp'] }],
  // `context.switchToHttp().getRequest()` on an ExecutionContext the engine cannot see.
  requestFactories: ['getRequest'],
  parameters: {
    decorators: INPUT,
    safePipes: /^(ParseIntPipe|ParseFloatPipe|ParseBoolPipe|ParseUUIDPipe|ParseEnumPipe|ParseArrayPipe)$/,
    validatedDto:
      /^(Is[A-Z]\w*|Min|Max|MinLength|MaxLength|Length|Matches|ValidateNested|Equals|NotEquals|ArrayMinSize|ArrayMaxSize|Contains|NotContains|Allow)$/,
  },
};
