/**
 * The static vocabulary of the finance demo seed: Brazilian vendors and customers, the
 * three-level chart of accounts, bank accounts, cost centers and taxes. Data only; turning it
 * into rows (ids, dates, amounts) is finance.ts's job.
 */

export interface CategoryNode {
  readonly key: string;
  readonly name: string;
  readonly children?: readonly CategoryNode[];
}

/** Level 1 carries the type; levels 2 and 3 inherit it (docs/domain.md#resources). */
export const CHART_OF_ACCOUNTS: readonly { readonly type: 'debit' | 'credit'; readonly root: CategoryNode }[] = [
  {
    type: 'credit',
    root: {
      key: 'receitas', name: 'Receitas', children: [
        { key: 'vendas', name: 'Vendas', children: [
          { key: 'produtos', name: 'Venda de produtos' },
          { key: 'servicos', name: 'Prestação de serviços' },
          { key: 'assinaturas', name: 'Assinaturas' },
        ] },
        { key: 'financeiras', name: 'Receitas financeiras', children: [
          { key: 'rendimentos', name: 'Rendimentos de aplicações' },
        ] },
      ],
    },
  },
  {
    type: 'debit',
    root: {
      key: 'despesas', name: 'Despesas', children: [
        { key: 'administrativas', name: 'Despesas administrativas', children: [
          { key: 'aluguel', name: 'Aluguel' },
          { key: 'energia', name: 'Energia elétrica' },
          { key: 'telecom', name: 'Internet e telefonia' },
          { key: 'material', name: 'Material de escritório' },
          { key: 'contabilidade', name: 'Honorários contábeis' },
        ] },
        { key: 'pessoal', name: 'Despesas com pessoal', children: [
          { key: 'beneficios', name: 'Vale-refeição e benefícios' },
          { key: 'treinamento', name: 'Treinamentos' },
        ] },
        { key: 'comerciais', name: 'Despesas comerciais', children: [
          { key: 'marketing', name: 'Marketing e publicidade' },
          { key: 'fretes', name: 'Fretes e entregas' },
        ] },
        { key: 'tributos', name: 'Impostos e taxas', children: [
          { key: 'simples', name: 'Simples Nacional' },
        ] },
      ],
    },
  },
];

/** A vendor or customer of the demo. */
export interface PartySeed {
  readonly name: string;
  readonly kind: 'natural' | 'juridical';
  readonly email: string;
  /** Leaf category key its bills (or invoices) go to. */
  readonly category: string;
  /** Typical bill (or invoice) range in reais. */
  readonly min: number;
  readonly max: number;
}

export interface VendorSeed extends PartySeed {
  /** Monthly bill due on this day, instead of random ones. */
  readonly monthlyDay?: number;
}

export const VENDORS: readonly VendorSeed[] = [
  { name: 'Imobiliária Paulista Ltda', kind: 'juridical', email: 'financeiro@imobpaulista.com.br', category: 'aluguel', min: 4800, max: 4800, monthlyDay: 10 },
  { name: 'Enel Distribuição São Paulo', kind: 'juridical', email: 'contas@enel.com.br', category: 'energia', min: 380, max: 920, monthlyDay: 15 },
  { name: 'Vivo Empresas (Telefônica Brasil S.A.)', kind: 'juridical', email: 'empresas@vivo.com.br', category: 'telecom', min: 289.9, max: 289.9, monthlyDay: 20 },
  { name: 'Kalunga Comércio e Indústria Gráfica', kind: 'juridical', email: 'vendas@kalunga.com.br', category: 'material', min: 120, max: 1450 },
  { name: 'Contabilidade Moreira & Associados', kind: 'juridical', email: 'atendimento@moreiracontabil.com.br', category: 'contabilidade', min: 1850, max: 1850, monthlyDay: 5 },
  { name: 'Ticket Serviços S.A.', kind: 'juridical', email: 'clientes@ticket.com.br', category: 'beneficios', min: 6200, max: 7400, monthlyDay: 28 },
  { name: 'Escola de Negócios Alfa', kind: 'juridical', email: 'cursos@alfanegocios.com.br', category: 'treinamento', min: 900, max: 3600 },
  { name: 'Agência Pixel Criativo Ltda', kind: 'juridical', email: 'contato@pixelcriativo.com.br', category: 'marketing', min: 1500, max: 9800 },
  { name: 'Transportadora Rota Sul Ltda', kind: 'juridical', email: 'cobranca@rotasul.com.br', category: 'fretes', min: 210, max: 2300 },
  { name: 'Marcos Vinícius Oliveira', kind: 'natural', email: 'marcos.oliveira@gmail.com', category: 'marketing', min: 800, max: 2400 },
  { name: 'Juliana Ferreira Santos', kind: 'natural', email: 'ju.ferreira@outlook.com', category: 'treinamento', min: 600, max: 1800 },
  { name: 'Receita Federal — DAS', kind: 'juridical', email: 'nao-responda@receita.fazenda.gov.br', category: 'simples', min: 2100, max: 5200, monthlyDay: 20 },
];

export type CustomerSeed = PartySeed;

export const CUSTOMERS: readonly CustomerSeed[] = [
  { name: 'Padaria Pão Dourado Ltda', kind: 'juridical', email: 'compras@paodourado.com.br', category: 'produtos', min: 450, max: 3200 },
  { name: 'Mercado Bom Preço Eireli', kind: 'juridical', email: 'financeiro@bompreco.com.br', category: 'produtos', min: 1200, max: 8900 },
  { name: 'Clínica Sorriso Saúde Ltda', kind: 'juridical', email: 'adm@sorrisosaude.com.br', category: 'servicos', min: 2500, max: 7500 },
  { name: 'Construtora Horizonte S.A.', kind: 'juridical', email: 'contas.pagar@horizonte.com.br', category: 'servicos', min: 8000, max: 24000 },
  { name: 'Escritório Lima Advocacia', kind: 'juridical', email: 'financeiro@limaadv.com.br', category: 'assinaturas', min: 399, max: 399 },
  { name: 'Restaurante Sabor Mineiro', kind: 'juridical', email: 'gerencia@sabormineiro.com.br', category: 'assinaturas', min: 249, max: 249 },
  { name: 'Fernanda Costa Ribeiro', kind: 'natural', email: 'fernanda.ribeiro@gmail.com', category: 'servicos', min: 350, max: 1600 },
  { name: 'Ricardo Almeida Souza', kind: 'natural', email: 'ricardo.souza@yahoo.com.br', category: 'produtos', min: 180, max: 950 },
  { name: 'Auto Peças Veloz Ltda', kind: 'juridical', email: 'compras@autopecasveloz.com.br', category: 'produtos', min: 900, max: 5600 },
  { name: 'Colégio Novo Saber', kind: 'juridical', email: 'tesouraria@novosaber.edu.br', category: 'assinaturas', min: 1490, max: 1490 },
];

export const ACCOUNTS = [
  { key: 'itau', name: 'Itaú 1234', type: 'checking', bank_code: '341', agency: '1234', account_number: '12345-6', opening: 85_000 },
  { key: 'bradesco', name: 'Bradesco 5678', type: 'savings', bank_code: '237', agency: '5678', account_number: '98765-4', opening: 40_000 },
  { key: 'caixa', name: 'Caixa', type: 'cash', bank_code: null, agency: null, account_number: null, opening: 1_500 },
] as const;

export const COST_CENTERS = [
  { key: 'adm', name: 'Administrativo', type: 'cost' },
  { key: 'ops', name: 'Operações', type: 'cost' },
  { key: 'comercial', name: 'Comercial', type: 'both' },
  { key: 'projetos', name: 'Projetos', type: 'revenue' },
  { key: 'varejo', name: 'Varejo', type: 'revenue' },
] as const;

export const TAXES = [
  { name: 'IRRF', default_rate: '1.50' },
  { name: 'ISS', default_rate: '5.00' },
  { name: 'PIS', default_rate: '0.65' },
  { name: 'COFINS', default_rate: '3.00' },
  { name: 'CSLL', default_rate: '1.00' },
] as const;
